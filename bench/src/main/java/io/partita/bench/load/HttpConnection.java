package io.partita.bench.load;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.util.ReferenceCountUtil;
import java.net.URI;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import javax.net.ssl.SSLException;

/**
 * One HTTP/1.1 keep-alive connection speaking DynamoDB's JSON protocol, one request in flight at a time (no
 * pipelining, like the AWS SDKs). Requests are written as raw bytes — a pre-encoded header prefix, the per-request
 * headers and the body — so the client does not pay for an HTTP encoder; responses go through Netty's decoder and
 * aggregator. Everything runs on the connection's event loop.
 */
@ChannelHandler.Sharable
public final class HttpConnection extends ChannelInboundHandlerAdapter {
    /** Where to connect and what to put in {@code Host}. */
    public record Endpoint(String host, int port, boolean tls, String hostHeader) {
        public static Endpoint parse(String url) {
            URI uri = URI.create(url);
            boolean tls = "https".equalsIgnoreCase(uri.getScheme());
            if (!tls && !"http".equalsIgnoreCase(uri.getScheme())) {
                throw new IllegalArgumentException("endpoint must be http:// or https://, not " + url);
            }
            int defaultPort = tls ? 443 : 80;
            int port = uri.getPort() < 0 ? defaultPort : uri.getPort();
            String hostHeader = port == defaultPort ? uri.getHost() : uri.getHost() + ":" + port;
            return new Endpoint(uri.getHost(), port, tls, hostHeader);
        }
    }

    /** A response: status, the {@code __type} short name of an error (else null) and the body if asked for. */
    public record Response(int status, String errorType, String body) {
        public boolean ok() {
            return status == 200;
        }
    }

    /** The event loops, transport and TLS settings shared by all connections to one endpoint. */
    public static final class Transport implements AutoCloseable {
        final EventLoopGroup group;
        final Endpoint endpoint;
        final SigV4.Credentials credentials;
        private final Bootstrap bootstrap;

        public Transport(Endpoint endpoint, SigV4.Credentials credentials, int threads) {
            this.endpoint = endpoint;
            this.credentials = credentials;
            boolean epoll = Epoll.isAvailable();
            IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
            this.group = new MultiThreadIoEventLoopGroup(threads, io);
            SslContext ssl;
            try {
                ssl = endpoint.tls() ? SslContextBuilder.forClient().build() : null;
            } catch (SSLException e) {
                throw new IllegalStateException(e);
            }
            this.bootstrap = new Bootstrap()
                    .group(group)
                    .channel(epoll ? EpollSocketChannel.class : NioSocketChannel.class)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .option(ChannelOption.SO_KEEPALIVE, true)
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 10_000)
                    .remoteAddress(endpoint.host(), endpoint.port())
                    .handler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            if (ssl != null) {
                                ch.pipeline().addLast(ssl.newHandler(ch.alloc(), endpoint.host(), endpoint.port()));
                            }
                            ch.pipeline()
                                    .addLast(new HttpResponseDecoder())
                                    .addLast(new HttpObjectAggregator(64 * 1024 * 1024));
                        }
                    });
        }

        /** Connects a new connection on the next event loop, blocking until connected. */
        public HttpConnection connect() {
            HttpConnection c = new HttpConnection(this, group.next());
            c.connectNow().join();
            return c;
        }

        @Override
        public void close() {
            group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS)
                    .syncUninterruptibly();
        }
    }

    private final Transport transport;
    private final EventLoop loop;
    private final SigV4.RequestSigner signer;
    private final byte[] headPrefix;
    private final byte[] targetPrefix = "X-Amz-Target: DynamoDB_20120810.".getBytes(StandardCharsets.US_ASCII);
    private Channel channel;
    private CompletableFuture<Response> pending;
    private boolean keepBody;
    private long dateSecond = -1;
    private String amzDate;

    private HttpConnection(Transport transport, EventLoop loop) {
        this.transport = transport;
        this.loop = loop;
        this.signer = transport.credentials.newSigner(transport.endpoint.hostHeader());
        String token = transport.credentials.sessionToken();
        this.headPrefix = ("POST / HTTP/1.1\r\nHost: " + transport.endpoint.hostHeader() + "\r\nContent-Type: "
                        + SigV4.RequestSigner.CONTENT_TYPE + "\r\n"
                        + (token != null ? "X-Amz-Security-Token: " + token + "\r\n" : ""))
                .getBytes(StandardCharsets.US_ASCII);
    }

    public EventLoop loop() {
        return loop;
    }

    public boolean active() {
        return channel != null && channel.isActive();
    }

    /** (Re)connects on this connection's own event loop. */
    public CompletableFuture<Void> connectNow() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        ChannelFuture f = transport.bootstrap.clone(loop).connect();
        f.addListener(x -> {
            if (f.isSuccess()) {
                f.channel().pipeline().addLast(this);
                channel = f.channel();
                done.complete(null);
            } else {
                done.completeExceptionally(f.cause());
            }
        });
        return done;
    }

    public void close() {
        if (channel != null) channel.close();
    }

    /**
     * Sends one signed request; the future completes on the event loop. Must be called on the event loop (or before
     * any traffic), with no request in flight.
     */
    public CompletableFuture<Response> send(String target, Workload.Bytes body, boolean keepBody) {
        CompletableFuture<Response> f = new CompletableFuture<>();
        if (!active()) {
            f.completeExceptionally(new ClosedChannelException());
            return f;
        }
        pending = f;
        this.keepBody = keepBody;
        long second = System.currentTimeMillis() / 1000;
        if (second != dateSecond) {
            dateSecond = second;
            amzDate = SigV4.amzDate(java.time.Instant.ofEpochSecond(second));
        }
        String auth = signer.authorization(target, amzDate, body.array(), 0, body.length());
        ByteBuf buf = channel.alloc().directBuffer(headPrefix.length + auth.length() + body.length() + 160);
        buf.writeBytes(headPrefix);
        buf.writeBytes(targetPrefix);
        buf.writeCharSequence(target, StandardCharsets.US_ASCII);
        buf.writeCharSequence("\r\nX-Amz-Date: ", StandardCharsets.US_ASCII);
        buf.writeCharSequence(amzDate, StandardCharsets.US_ASCII);
        buf.writeCharSequence("\r\nAuthorization: ", StandardCharsets.US_ASCII);
        buf.writeCharSequence(auth, StandardCharsets.US_ASCII);
        buf.writeCharSequence("\r\nContent-Length: ", StandardCharsets.US_ASCII);
        buf.writeCharSequence(Integer.toString(body.length()), StandardCharsets.US_ASCII);
        buf.writeCharSequence("\r\n\r\n", StandardCharsets.US_ASCII);
        buf.writeBytes(body.array(), 0, body.length());
        channel.writeAndFlush(buf, channel.voidPromise());
        return f;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (!(msg instanceof FullHttpResponse r)) return;
            CompletableFuture<Response> f = pending;
            pending = null;
            if (f == null) return;
            int status = r.status().code();
            String body = null;
            String errorType = null;
            if (status != 200) {
                body = r.content().toString(StandardCharsets.UTF_8);
                errorType = errorType(status, body);
            } else if (keepBody) {
                body = r.content().toString(StandardCharsets.UTF_8);
            }
            f.complete(new Response(status, errorType, body));
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        // A channel replaced by a reconnect must not fail the request in flight on its successor.
        if (ctx.channel() == channel) fail(new ClosedChannelException());
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (ctx.channel() == channel) fail(cause);
        ctx.close();
    }

    private void fail(Throwable cause) {
        CompletableFuture<Response> f = pending;
        pending = null;
        if (f != null) f.completeExceptionally(cause);
    }

    /** The short {@code __type} of an error body ({@code com.amazonaws.dynamodb.v20120810#X} → {@code X}). */
    static String errorType(int status, String body) {
        int i = body.indexOf("\"__type\"");
        if (i >= 0) {
            int start = body.indexOf('"', body.indexOf(':', i) + 1);
            int end = start < 0 ? -1 : body.indexOf('"', start + 1);
            if (end > start) {
                String type = body.substring(start + 1, end);
                return type.substring(type.lastIndexOf('#') + 1);
            }
        }
        return "HTTP" + status;
    }
}
