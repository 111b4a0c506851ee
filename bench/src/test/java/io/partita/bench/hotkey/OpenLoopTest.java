package io.partita.bench.hotkey;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.partita.bench.load.HttpConnection;
import io.partita.bench.load.SigV4;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The open-loop driver against an in-process fake that throttles the hot key: no Partita needed. */
class OpenLoopTest {
    private static final String THROTTLE = "{\"__type\":\"com.amazonaws.dynamodb.v20120810#"
            + "ProvisionedThroughputExceededException\",\"message\":\"slow down\","
            + "\"ThrottlingReasons\":[{\"reason\":\"TableWriteKeyRangeThroughputExceeded\"}]}";

    private EventLoopGroup serverGroup;
    private Channel server;

    /** Answers after {@code delayMillis}: a throttle for the hot tenant, {@code {}} for anyone else. */
    private String start(long delayMillis) throws InterruptedException {
        serverGroup = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        server = new ServerBootstrap()
                .group(serverGroup)
                .channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline()
                                .addLast(new HttpServerCodec())
                                .addLast(new HttpObjectAggregator(1 << 20))
                                .addLast(new SimpleChannelInboundHandler<FullHttpRequest>() {
                                    @Override
                                    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
                                        boolean hot = req.content()
                                                .toString(StandardCharsets.UTF_8)
                                                .contains(HotKeyRequests.HOT_TENANT);
                                        byte[] body = (hot ? THROTTLE : "{}").getBytes(StandardCharsets.UTF_8);
                                        FullHttpResponse res = new DefaultFullHttpResponse(
                                                HttpVersion.HTTP_1_1,
                                                hot ? HttpResponseStatus.BAD_REQUEST : HttpResponseStatus.OK,
                                                Unpooled.wrappedBuffer(body));
                                        res.headers().set(HttpHeaderNames.CONTENT_LENGTH, body.length);
                                        ctx.executor()
                                                .schedule(
                                                        () -> ctx.writeAndFlush(res),
                                                        delayMillis,
                                                        TimeUnit.MILLISECONDS);
                                    }
                                });
                    }
                })
                .bind("127.0.0.1", 0)
                .sync()
                .channel();
        return "http://127.0.0.1:" + ((InetSocketAddress) server.localAddress()).getPort();
    }

    @AfterEach
    void stop() {
        if (server != null) server.close().syncUninterruptibly();
        if (serverGroup != null)
            serverGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private static HttpConnection.Transport transport(String endpoint) {
        return new HttpConnection.Transport(
                HttpConnection.Endpoint.parse(endpoint), new SigV4.Credentials("local", "local", null, "us-east-1"), 1);
    }

    @Test
    void sendsEveryScheduledRequestAndSortsThrottlesFromSuccesses() throws Exception {
        String endpoint = start(0);
        try (HttpConnection.Transport t = transport(endpoint)) {
            OpenLoop loop = new OpenLoop(t, 4, new HotKeyRequests("t", Op.WRITE, 1, 10, 1, 1), 1);
            ClientCounts c = loop.run(400, 25, 1.0);
            loop.close();

            assertThat(c.sent()).isEqualTo(400); // due at start + i / 400 s for i < 400
            assertThat(c.unsent()).isZero();
            assertThat(c.unfinished()).isZero();
            assertThat(c.throttled()).isEqualTo(100);
            assertThat(c.ok()).isEqualTo(300);
            assertThat(c.errors()).isZero();
            assertThat(c.throttleReasons()).containsEntry("TableWriteKeyRangeThroughputExceeded", 100L);
            assertThat(c.throttlePercent()).isEqualTo(25);
        }
    }

    @Test
    void aSlowServerWithTooFewConnectionsLeavesRequestsUnsentRatherThanSlowingTheSchedule() throws Exception {
        String endpoint = start(100);
        try (HttpConnection.Transport t = transport(endpoint)) {
            OpenLoop loop = new OpenLoop(t, 1, new HotKeyRequests("t", Op.WRITE, 1, 10, 1, 1), 1);
            ClientCounts c = loop.run(100, 0, 0.5);
            loop.close();

            // one connection, 100 ms per answer: about 5 of the 50 due requests go out, the rest are reported
            assertThat(c.sent()).isBetween(3L, 7L);
            assertThat(c.sent() + c.unsent()).isEqualTo(50);
            assertThat(c.ok()).isEqualTo(c.sent());
        }
    }
}
