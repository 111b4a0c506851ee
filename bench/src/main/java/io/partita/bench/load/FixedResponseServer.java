package io.partita.bench.load;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.partita.server.netty.Transport;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import java.util.zip.CRC32;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The ceiling for load measurements: a Netty HTTP server with the same pipeline shape as Partita's (codec, aggregator,
 * handler) that answers every request with a fixed, DynamoDB-shaped {@code {}} — no parsing, no storage. Whatever
 * the load generator reaches against it on a machine is the most any HTTP server there can be measured at.
 */
@Command(
        name = "FixedResponseServer",
        mixinStandardHelpOptions = true,
        description = "Answers every request with a fixed DynamoDB-shaped JSON body.")
public final class FixedResponseServer implements Callable<Integer>, AutoCloseable {
    private static final byte[] BODY = "{}".getBytes(StandardCharsets.US_ASCII);

    @Option(names = "--port", description = "port to listen on (default: ${DEFAULT-VALUE})")
    int port = 8001;

    @Option(names = "--host", description = "address to bind (default: ${DEFAULT-VALUE})")
    String host = "127.0.0.1";

    @Option(names = "--threads", description = "event-loop threads (default: cores)")
    int threads = Runtime.getRuntime().availableProcessors();

    @Option(
            names = "--transport",
            description = "auto, io_uring, epoll or nio, chosen as Partita chooses (default: ${DEFAULT-VALUE})")
    String transport = "auto";

    private EventLoopGroup group;
    private Channel server;

    public static void main(String[] args) {
        // As the server does (Main): sampled leak detection records a stack trace per 128 buffers, 1.7 % of the
        // open-loop generator's CPU in a profile.
        if (System.getProperty("io.netty.leakDetection.level") == null) {
            System.setProperty("io.netty.leakDetection.level", "disabled");
        }
        System.exit(new CommandLine(new FixedResponseServer()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        start();
        System.out.println("fixed-response server on http://" + host + ":" + port());
        server.closeFuture().sync();
        return 0;
    }

    /** Binds and returns at once; {@link #port()} is the bound port ({@code --port 0} picks a free one). */
    public FixedResponseServer start() throws InterruptedException {
        // The same network I/O as Partita's, so the ceiling is measured on the same footing.
        Transport resolved = Transport.parse(transport).resolve();
        group = new MultiThreadIoEventLoopGroup(threads, resolved.ioHandlerFactory());
        Handler handler = new Handler();
        server = new ServerBootstrap()
                .group(group)
                .channel(resolved.serverChannel())
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline()
                                .addLast(new HttpServerCodec())
                                .addLast(new HttpObjectAggregator(16 * 1024 * 1024))
                                .addLast(handler);
                    }
                })
                .bind(host, port)
                .sync()
                .channel();
        return this;
    }

    public int port() {
        return ((java.net.InetSocketAddress) server.localAddress()).getPort();
    }

    @Override
    public void close() {
        if (server != null) server.close().syncUninterruptibly();
        if (group != null)
            group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS)
                    .syncUninterruptibly();
    }

    @ChannelHandler.Sharable
    private static final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
        private static final String CRC = crc32(BODY);

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
            FullHttpResponse res = new DefaultFullHttpResponse(
                    HttpVersion.HTTP_1_1, HttpResponseStatus.OK, Unpooled.wrappedBuffer(BODY));
            res.headers()
                    .set(HttpHeaderNames.CONTENT_TYPE, "application/x-amz-json-1.0")
                    .set(HttpHeaderNames.CONTENT_LENGTH, BODY.length)
                    .set("x-amzn-RequestId", "FIXEDRESPONSE0000000000000000000000000000000000000000")
                    .set("x-amz-crc32", CRC);
            boolean keepAlive = HttpUtil.isKeepAlive(req);
            if (keepAlive) {
                ctx.writeAndFlush(res, ctx.voidPromise());
            } else {
                ctx.writeAndFlush(res).addListener(ChannelFutureListener.CLOSE);
            }
        }

        private static String crc32(byte[] b) {
            CRC32 crc = new CRC32();
            crc.update(b);
            return Long.toString(crc.getValue());
        }
    }
}
