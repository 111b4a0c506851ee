package io.partita.server.cluster;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.server.http.ErrorBody;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * A cluster node's public port. Every request goes to the node that serves the cluster now, the leader: to its own
 * server on loopback when this node leads, else to the leader's public port, marked as forwarded (a forwarded request
 * is never forwarded again). While no node serves (an election), or the leader cannot be reached, the answer is a 503:
 * nothing was done. A forwarded request whose answer is lost answers a 500, whose outcome is unknown. The AWS SDKs
 * retry both.
 * {@code GET /cluster} answers this node's view of the cluster, {@code GET /cluster/metrics} its figures for
 * Prometheus.
 */
final class ClusterRouter implements AutoCloseable {
    static final String FORWARDED = "x-partita-forwarded-by";
    /** A body up to the server's own limit passes; the server answers 413 past it. */
    private static final int MAX_BODY = 16 * 1024 * 1024 + 1;
    /** Headers the JDK's client sets itself, or that describe one connection only. */
    private static final Set<String> HOP_BY_HOP = Set.of(
            "connection",
            "content-length",
            "expect",
            "host",
            "upgrade",
            "keep-alive",
            "transfer-encoding",
            "te",
            "trailer",
            "proxy-connection",
            "http2-settings");

    /** Where a request goes now: an address (host:port) and whether that is this node's own server. */
    record Target(String address, boolean local) {}

    private final EventLoopGroup loops;
    /** Every client connection, closed with the router so that none waits for an answer that will not come. */
    private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);

    private final Channel channel;
    private final HttpClient client;
    private final String nodeId;
    private final Supplier<Target> target;
    private final Supplier<String> status;
    private final io.partita.server.metrics.ClusterMetrics metrics;

    ClusterRouter(
            String host,
            int port,
            String nodeId,
            Supplier<Target> target,
            Supplier<String> status,
            io.partita.server.metrics.ClusterMetrics metrics)
            throws InterruptedException {
        this.nodeId = nodeId;
        this.target = target;
        this.status = status;
        this.metrics = metrics;
        this.client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(2))
                .build();
        this.loops = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        this.channel = new ServerBootstrap()
                .group(loops)
                .channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        connections.add(ch);
                        ch.pipeline()
                                .addLast(new HttpServerCodec())
                                .addLast(new HttpObjectAggregator(MAX_BODY))
                                .addLast(new Forward());
                    }
                })
                .bind(new InetSocketAddress(host, port))
                .sync()
                .channel();
    }

    int port() {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    private final class Forward extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            boolean keepAlive = HttpUtil.isKeepAlive(request);
            if (request.method().equals(HttpMethod.GET) && request.uri().equals("/cluster")) {
                answer(ctx, keepAlive, 200, "application/json", status.get().getBytes(StandardCharsets.UTF_8), null);
                return;
            }
            if (request.method().equals(HttpMethod.GET) && request.uri().equals("/cluster/metrics")) {
                io.partita.server.metrics.PartitaMetrics.Scrape scrape = metrics.scrape();
                answer(ctx, keepAlive, 200, scrape.contentType(), scrape.body(), null);
                return;
            }
            Target to = target.get();
            String forwardedBy = request.headers().get(FORWARDED);
            if (to == null || (!to.local() && forwardedBy != null)) {
                error(
                        ctx,
                        keepAlive,
                        ErrorCode.SERVICE_UNAVAILABLE,
                        "no node of the cluster serves requests now (an election is under way)");
                return;
            }
            HttpRequest.Builder out = HttpRequest.newBuilder(URI.create("http://" + to.address() + request.uri()))
                    .timeout(Duration.ofSeconds(70))
                    .method(
                            request.method().name(),
                            HttpRequest.BodyPublishers.ofByteArray(ByteBufUtil.getBytes(request.content())));
            for (Map.Entry<String, String> h : request.headers()) {
                if (!HOP_BY_HOP.contains(h.getKey().toLowerCase(Locale.ROOT))) {
                    out.header(h.getKey(), h.getValue());
                }
            }
            if (!to.local()) {
                out.header(FORWARDED, nodeId);
            }
            // One request of a connection at a time, so that answers leave in the order the requests came.
            ctx.channel().config().setAutoRead(false);
            client.sendAsync(out.build(), HttpResponse.BodyHandlers.ofByteArray())
                    .whenComplete((response, failure) -> {
                        if (failure != null) {
                            Throwable cause = failure instanceof java.util.concurrent.CompletionException
                                    ? failure.getCause()
                                    : failure;
                            if (cause instanceof java.net.ConnectException
                                    || cause instanceof java.net.http.HttpConnectTimeoutException) {
                                // Never reached the leader: nothing was done.
                                error(
                                        ctx,
                                        keepAlive,
                                        ErrorCode.SERVICE_UNAVAILABLE,
                                        "the cluster's leader cannot be reached: " + cause);
                            } else {
                                // Sent, and the answer lost: the leader may have committed it, so its outcome is
                                // unknown, as a 500's is.
                                error(ctx, keepAlive, ErrorCode.INTERNAL_SERVER_ERROR, "Internal server error");
                            }
                            return;
                        }
                        answer(
                                ctx,
                                keepAlive,
                                response.statusCode(),
                                null,
                                response.body(),
                                response.headers().map());
                    });
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    /**
     * An error in DynamoDB's shape: a 503 (nothing was done) or a 500 (the outcome is unknown); the SDKs retry both.
     */
    private static void error(ChannelHandlerContext ctx, boolean keepAlive, ErrorCode code, String message) {
        answer(
                ctx,
                keepAlive,
                code.httpStatus(),
                "application/x-amz-json-1.0",
                ErrorBody.of(new ApiException(code, message)),
                Map.of("x-amzn-RequestId", List.of(UUID.randomUUID().toString())));
    }

    private static void answer(
            ChannelHandlerContext ctx,
            boolean keepAlive,
            int status,
            String contentType,
            byte[] body,
            Map<String, List<String>> headers) {
        if (ctx.executor().isShuttingDown()) {
            return; // the router is closing; its connections go with it
        }
        FullHttpResponse response = new DefaultFullHttpResponse(
                HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status), Unpooled.wrappedBuffer(body));
        if (headers != null) {
            headers.forEach((name, values) -> {
                String lower = name.toLowerCase(Locale.ROOT);
                if (!HOP_BY_HOP.contains(lower) && !lower.startsWith(":")) {
                    response.headers().add(name, values);
                }
            });
        }
        if (contentType != null) {
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
        }
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
        if (keepAlive) {
            response.headers().set(HttpHeaderNames.CONNECTION, "keep-alive");
            ctx.writeAndFlush(response).addListener(f -> ctx.channel().config().setAutoRead(true));
        } else {
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        }
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
        connections.close().awaitUninterruptibly();
        loops.shutdownGracefully(0, 2, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
    }
}
