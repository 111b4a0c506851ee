package io.partita.server.cluster;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
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
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.flow.FlowControlHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.server.http.ErrorBody;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A cluster node's public port. Every request goes to the node that serves its group now, the group's leader (in
 * strict mode each account's store is a group of its own): to its own server on loopback when this node leads the
 * group, else to the leader's public port, marked as forwarded (a forwarded request
 * is never forwarded again). While no node serves (an election), or the leader cannot be reached, the answer is a 503:
 * nothing was done. A forwarded request whose answer is lost answers a 500, whose outcome is unknown. The AWS SDKs
 * retry both.
 * {@code GET /cluster} answers this node's view of the cluster, {@code GET /cluster/metrics} its figures for
 * Prometheus; {@code POST /cluster/members} changes the members, on the leader. With follower reads on, a follower
 * answers eventually consistent reads with its own reader instead ({@link #eventualRead}).
 */
final class ClusterRouter implements AutoCloseable {
    static final String FORWARDED = "x-partita-forwarded-by";
    private static final String TARGET_PREFIX = "DynamoDB_20120810.";
    /** An answer's largest body: BatchGetItem's 16 MB, with room for its JSON. */
    private static final int MAX_ANSWER = 64 * 1024 * 1024;
    /** How long a forwarded request may wait for its answer; past it the answer is a 500. */
    private static final int ANSWER_SECONDS = 70;
    /**
     * How long a request waits here for a node that serves it, while none is known (an election, or a node that has
     * not yet heard from its leader), before it is answered 503: about one election at the default timeouts.
     */
    static final long LEADER_WAIT_MILLIS = 2_000;

    private static final String NONE_SERVES = "no node of the cluster serves requests now (an election is under way)";
    /**
     * Set by the router on a 503 it answers a forwarded request without handing it to a server (no node serves it
     * from there): nothing was done, so the node that forwarded it looks again for one that serves, while its own wait
     * lasts, rather than answer the client the 503 of a leader it knew a moment too long. Never sent on to a client.
     */
    static final String UNSERVED = "x-partita-unserved";
    /** How often a waiting request looks for a node that serves it again. */
    private static final long LEADER_POLL_MILLIS = 25;
    /** A body up to the server's own limit passes; the server answers 413 past it. */
    private static final int MAX_BODY = 16 * 1024 * 1024 + 1;
    /** Headers the JDK's client sets itself, or that describe one connection only. */
    static final Set<String> HOP_BY_HOP = Set.of(
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

    /**
     * Where a request goes now: an address (host:port) and whether that is this node's own server; or, with {@code
     * refusal} (and no address), nowhere: the router answers that error itself. {@code group}, when not null, names the
     * group it goes to for the node it is forwarded to ({@link #GROUP}).
     */
    record Target(String address, boolean local, ApiException refusal, String group, boolean spreads) {
        Target(String address, boolean local) {
            this(address, local, null, null, false);
        }

        Target(String address, boolean local, ApiException refusal, String group) {
            this(address, local, refusal, group, false);
        }

        /** A request no node can serve as it is: the router answers {@code why}. */
        static Target refusing(ApiException why) {
            return new Target(null, false, why, null, false);
        }

        /** A request over several groups (a batch, an account-wide list): {@link Tables#spread} runs it, from here. */
        static final Target SPREAD = new Target(null, false, null, null, true);
    }

    /**
     * Set by the router on a request it forwards to a table's own group ({@code --cluster-table-groups}): the group's
     * id, so that the node it goes to serves it in that group, even before it has the table's record itself.
     */
    static final String GROUP = "x-partita-group";

    /**
     * Set by the router on a request the account's own group placed in a group of its own ({@link #places}): it waits
     * for that group, and goes nowhere else.
     */
    static final String PLACED = "x-partita-placed";

    /** How long a request whose table was just placed in a group of its own waits for that group's first leader. */
    static final long PLACED_WAIT_MILLIS = 15_000;

    /** An answer the router makes itself: its status and JSON body. */
    record Made(int status, String json) {}

    /** An answer of DynamoDB's API: its status and JSON body. */
    record Reply(int status, byte[] body) {}

    /** What a cluster with a group per table ({@code --cluster-table-groups}) does here besides forwarding. */
    interface Tables {
        /**
         * Whether {@code request} may make a table in a group of its own (CreateTable, ImportTable): kept while on its
         * way, to be sent again once the account's group answers that it placed the table ({@link
         * ErrorCode#TABLE_PLACED}).
         */
        boolean places(FullHttpRequest request);

        /**
         * Runs a request over several groups ({@link Target#SPREAD}: a batch over tables in several, a list over every
         * table of an account) and answers it; never fails.
         */
        java.util.concurrent.CompletableFuture<Reply> spread(Sent request);
    }

    /** Changes of the cluster's members, made on the leader ({@code POST /cluster/members}). */
    interface Members {
        /** Whether this node leads, and so makes the change itself rather than forwarding it to the leader. */
        boolean leads();

        /** Makes the change {@code request} asks for; it may wait for the groups, for minutes. */
        Made change(Sent request);

        /**
         * Moves part of a table's range to a new group ({@code POST /cluster/ranges}, on any node); it may wait for
         * the move, for minutes.
         */
        Made ranges(Sent request);

        /** How long {@link #change} may take: how long a forwarded change may wait for its answer, less a margin. */
        java.time.Duration limit();
    }

    /**
     * A request as it was sent (its headers copied, as the request is released once handed over): a change of the
     * members, or a batch over several groups ({@link Tables#spread}); what a strict cluster verifies the signature of.
     */
    record Sent(String method, String uri, io.netty.handler.codec.http.HttpHeaders headers, byte[] body)
            implements io.partita.server.auth.SigV4Verifier.Request {
        @Override
        public String path() {
            int q = uri.indexOf('?');
            return q < 0 ? uri : uri.substring(0, q);
        }

        @Override
        public String query() {
            int q = uri.indexOf('?');
            return q < 0 ? null : uri.substring(q + 1);
        }

        @Override
        public List<String> header(String lowerCaseName) {
            return headers.getAll(lowerCaseName);
        }
    }

    static final String MEMBERS_PATH = "/cluster/members";
    static final String RANGES_PATH = "/cluster/ranges";

    private final EventLoopGroup loops;
    /** Every client connection, closed with the router so that none waits for an answer that will not come. */
    private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);

    private final Channel channel;
    private final String nodeId;
    /** Where a request goes now: the node that serves its group (in strict mode, its account's), or null. */
    private final Function<FullHttpRequest, Target> target;
    /**
     * Where this node answers an eventually consistent read itself (its reader of the request's group, as a follower),
     * or null: to {@code target}. Null when follower reads are off.
     */
    private final Function<FullHttpRequest, Target> reads;
    /** With {@code --cluster-table-groups}, the placing of tables and the batches over groups; else null. */
    private final Tables tables;
    /** Reads answered by {@code reads}' target. */
    private final java.util.concurrent.atomic.LongAdder readsServed = new java.util.concurrent.atomic.LongAdder();

    private final Supplier<String> status;
    private final io.partita.server.metrics.ClusterMetrics metrics;
    private final Members members;
    /** HTTPS on the public port (with {@code --tls-cert}), or null for plain HTTP. */
    private final SslContext serverTls;
    /** With HTTPS, how this node speaks to another's public port, trusting the node's own certificates; else null. */
    private final SslContext forwardTls;
    /**
     * The one thread moves of ranges wait on ({@code POST /cluster/ranges}), apart from the members' changes; a few
     * queued at most, past which a request is answered 503.
     */
    private final java.util.concurrent.ExecutorService rangeChanges = new java.util.concurrent.ThreadPoolExecutor(
            1, 1, 0, TimeUnit.MILLISECONDS, new java.util.concurrent.ArrayBlockingQueue<>(4), r -> {
                Thread t = new Thread(r, "partita-cluster-ranges");
                t.setDaemon(true);
                return t;
            });

    /** The one thread changes of the members wait on: never an event loop. */
    private final java.util.concurrent.ExecutorService changes =
            java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "partita-cluster-members");
                t.setDaemon(true);
                return t;
            });

    ClusterRouter(
            String host,
            int port,
            String nodeId,
            Function<FullHttpRequest, Target> target,
            Function<FullHttpRequest, Target> reads,
            Supplier<String> status,
            io.partita.server.metrics.ClusterMetrics metrics,
            Members members,
            SslContext serverTls,
            SslContext forwardTls,
            Tables tables)
            throws InterruptedException {
        this.tables = tables;
        if ((serverTls == null) != (forwardTls == null)) {
            throw new IllegalArgumentException("HTTPS needs both the server's and the forwarding side's TLS");
        }
        this.serverTls = serverTls;
        this.forwardTls = forwardTls;
        this.nodeId = nodeId;
        this.target = target;
        this.reads = reads;
        this.status = status;
        this.metrics = metrics;
        this.members = members;
        this.loops = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        this.channel = new ServerBootstrap()
                .group(loops)
                .channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        connections.add(ch);
                        if (serverTls != null) {
                            ch.pipeline().addLast(serverTls.newHandler(ch.alloc()));
                        }
                        ch.pipeline()
                                .addLast(new HttpServerCodec())
                                .addLast(new HttpObjectAggregator(MAX_BODY))
                                // A client may pipeline: requests decoded together wait here, and each reaches
                                // Forward when it reads again after answering the one before (auto-read back on).
                                .addLast(new FlowControlHandler())
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

    /** How many eventually consistent reads this node answered itself, as a follower, since it started. */
    long followerReads() {
        return readsServed.sum();
    }

    /**
     * Sends a request this node makes (a share of a request over several groups, {@link Tables#spread}) to the node
     * that serves it, {@code where}, once there is one (waiting up to {@link #LEADER_WAIT_MILLIS}, as a client's
     * request waits), over a connection this event loop keeps to that address ({@link #kept}) or a new one; marked as
     * forwarded when it goes to another node. Its future never fails: a request that could not be sent answers a 503
     * (nothing was done), one whose answer was lost a 500.
     *
     * @param headers the request's headers but those of one connection, which this sets
     */
    java.util.concurrent.CompletableFuture<Reply> call(Supplier<Target> where, HttpHeaders headers, byte[] body) {
        java.util.concurrent.CompletableFuture<Reply> out = new java.util.concurrent.CompletableFuture<>();
        io.netty.channel.EventLoop loop = loops.next();
        long until = System.nanoTime() + LEADER_WAIT_MILLIS * 1_000_000;
        loop.execute(() -> new Call(loop, where, headers, body, until, out).whenServed());
        return out;
    }

    /**
     * How long a connection {@link #call} made stays kept between requests: long enough for a walk's shares and a
     * busy client's next batch, short enough that a node that went away without closing its connections (cut off, not
     * killed) is met on a new connection, whose connect fails in 2 s, rather than on an old one that waits for an
     * answer; and well within the 300 s after which a node's own server closes an idle connection. Older ones are
     * closed when their address is next used.
     */
    private static final long KEPT_NANOS = TimeUnit.SECONDS.toNanos(5);
    /**
     * What a call may send again when a kept connection it took closed before any byte of an answer came: reads and
     * checks, which change nothing. (The other end closed the connection as it was taken, or died after reading the
     * request: a write's outcome is then unknown, a 500.)
     */
    private static final Set<String> SAFE_AGAIN = Set.of(
            TARGET_PREFIX + "GetItem",
            TARGET_PREFIX + "BatchGetItem",
            TARGET_PREFIX + "Query",
            TARGET_PREFIX + "Scan",
            TARGET_PREFIX + "DescribeTable",
            io.partita.server.route.OperationRegistry.PARTITA_PREFIX + "CheckBatchWriteItem",
            io.partita.server.route.OperationRegistry.PARTITA_PREFIX + "ScanRange",
            io.partita.server.route.OperationRegistry.PARTITA_PREFIX + "QueryIndexRange",
            io.partita.server.route.OperationRegistry.PARTITA_PREFIX + "SelectRange");
    /** At most this many idle connections are kept to one address by one event loop; more are closed. */
    private static final int KEPT_PER_ADDRESS = 16;

    /** An idle connection {@link #call} made, and since when ({@link System#nanoTime}) it is idle. */
    private record Kept(Channel channel, Exchange exchange, long since) {}

    /**
     * The idle connections {@link #call} keeps, by address, each event loop its own (only that loop touches them):
     * a request over several groups sends a share to each, and a walk (a Scan's, a SELECT's) one after another, which
     * would otherwise open two connections for each (this node's to the serving node, that node's router's to its own
     * server). The most recently idle is taken first; closed ones leave the list as they close.
     */
    private final io.netty.util.concurrent.FastThreadLocal<Map<String, java.util.ArrayDeque<Kept>>> kept =
            new io.netty.util.concurrent.FastThreadLocal<>() {
                @Override
                protected Map<String, java.util.ArrayDeque<Kept>> initialValue() {
                    return new java.util.HashMap<>(8);
                }
            };

    /** A connection kept to {@code address} that is still open and fresh, taken off the list; else null. */
    private Kept takeKept(String address) {
        java.util.ArrayDeque<Kept> idle = kept.get().get(address);
        if (idle == null) {
            return null;
        }
        closeStale(idle);
        Kept k;
        while ((k = idle.pollLast()) != null) {
            if (k.channel().isActive()) {
                return k;
            }
        }
        return null;
    }

    /** Keeps {@code ch}, which has just answered its request in full, for the next request to its address. */
    private void keep(Channel ch, Exchange exchange) {
        java.util.ArrayDeque<Kept> idle =
                kept.get().computeIfAbsent(exchange.address, a -> new java.util.ArrayDeque<>());
        closeStale(idle);
        if (!ch.isActive() || ch.eventLoop().isShuttingDown() || idle.size() >= KEPT_PER_ADDRESS) {
            ch.close();
            return;
        }
        idle.addLast(new Kept(ch, exchange, System.nanoTime()));
    }

    /** Closes the connections of {@code idle} kept longer than {@link #KEPT_NANOS} (the oldest are first). */
    private static void closeStale(java.util.ArrayDeque<Kept> idle) {
        long now = System.nanoTime();
        while (!idle.isEmpty() && now - idle.peekFirst().since() > KEPT_NANOS) {
            idle.pollFirst().channel().close();
        }
    }

    /**
     * The answers of one connection {@link #call} made, each to the {@link Call} on it now; none between calls, while
     * the connection is kept. It runs on the connection's event loop, that of its calls.
     */
    private final class Exchange extends SimpleChannelInboundHandler<FullHttpResponse> {
        private final String address;
        /** The call whose request is on this connection, else null. */
        private Call current;
        /** Whether any byte came on this connection since {@link #current}'s request went out. */
        private boolean heard;

        Exchange(String address) {
            this.address = address;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext up, FullHttpResponse response) {
            Call call = current;
            if (call == null || !response.decoderResult().isSuccess()) {
                // An answer no request asked for, or one that could not be read: the connection cannot be trusted,
                // and its close answers the call (its outcome unknown).
                up.close();
                return;
            }
            current = null;
            call.answered(response);
            if (HttpUtil.isKeepAlive(response)) {
                keep(up.channel(), this);
            } else {
                up.close();
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext up) {
            java.util.ArrayDeque<Kept> idle = kept.get().get(address);
            if (idle != null) {
                idle.removeIf(k -> k.channel() == up.channel());
            }
            Call call = current;
            current = null;
            if (call != null) {
                call.closed();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext up, Throwable cause) {
            up.close();
        }
    }

    /** One request {@link #call} sends, and sends again while the node it reached answers that none serves there. */
    private final class Call {
        private final io.netty.channel.EventLoop loop;
        private final Supplier<Target> where;
        private final HttpHeaders headers;
        private final byte[] body;
        private final long until;
        private final java.util.concurrent.CompletableFuture<Reply> out;
        /** Whether the request went out on its connection: from then its outcome is unknown until it is answered. */
        private boolean sent;
        /** Closes the connection of the request on its way if its answer has not come in time. */
        private ScheduledFuture<?> deadline;
        /** Whether the request on its way went over a connection kept from an earlier call. */
        private boolean reused;
        /** The connection the request on its way went over. */
        private Exchange over;

        Call(
                io.netty.channel.EventLoop loop,
                Supplier<Target> where,
                HttpHeaders headers,
                byte[] body,
                long until,
                java.util.concurrent.CompletableFuture<Reply> out) {
            this.loop = loop;
            this.where = where;
            this.headers = headers;
            this.body = body;
            this.until = until;
            this.out = out;
        }

        /** Sends the request to the node that serves it, or waits for one (until {@link #until}), or answers 503. */
        void whenServed() {
            Target to;
            try {
                to = where.get();
            } catch (RuntimeException e) {
                to = null; // this node closing, say
            }
            if (to == null || to.address() == null) {
                if (!later()) {
                    out.complete(refusal(ErrorCode.SERVICE_UNAVAILABLE, NONE_SERVES));
                }
                return;
            }
            FullHttpRequest request = new DefaultFullHttpRequest(
                    HttpVersion.HTTP_1_1, HttpMethod.POST, "/", Unpooled.wrappedBuffer(body));
            request.headers().add(headers);
            request.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
            if (!to.local()) {
                request.headers().set(FORWARDED, nodeId);
                if (to.group() != null) {
                    request.headers().set(GROUP, to.group());
                }
            }
            sent = false;
            Kept open = takeKept(to.address());
            if (open != null) {
                reused = true;
                send(open.channel(), open.exchange(), request);
                return;
            }
            reused = false;
            Exchange exchange = new Exchange(to.address());
            ChannelFuture connecting = connect(loop, to, exchange);
            connecting.addListener(f -> {
                if (!f.isSuccess()) {
                    request.release();
                    out.complete(refusal(
                            ErrorCode.SERVICE_UNAVAILABLE, "the cluster's leader cannot be reached: " + f.cause()));
                    return;
                }
                send(connecting.channel(), exchange, request);
            });
        }

        /** Looks again for a node that serves in a moment, if the wait has time left; false when it has none. */
        private boolean later() {
            if (System.nanoTime() - until >= 0 || loop.isShuttingDown()) {
                return false;
            }
            loop.schedule(this::whenServed, LEADER_POLL_MILLIS, TimeUnit.MILLISECONDS);
            return true;
        }

        private void send(Channel ch, Exchange exchange, FullHttpRequest request) {
            over = exchange;
            exchange.heard = false;
            if (!ch.isActive()) {
                // Closed between its connect (or being kept) and now: its close has answered nobody.
                request.release();
                closed();
                return;
            }
            exchange.current = this;
            deadline = loop.schedule(() -> ch.close(), ANSWER_SECONDS, TimeUnit.SECONDS);
            ch.writeAndFlush(request).addListener(w -> {
                if (w.isSuccess()) {
                    sent = true; // from here its outcome is unknown until it is answered
                } else {
                    ch.close();
                }
            });
        }

        /** Its answer: the reply, or, when nothing was done there because none serves, the request sent again. */
        void answered(FullHttpResponse response) {
            deadline.cancel(false); // its connection may be kept, and serve another call
            deadline = null;
            if (unserved(response) && later()) {
                return;
            }
            out.complete(new Reply(response.status().code(), ByteBufUtil.getBytes(response.content())));
        }

        /**
         * Its connection closed before the answer came. A read over a kept connection that closed before any byte of
         * an answer is sent again, over another ({@link #SAFE_AGAIN}).
         */
        void closed() {
            if (deadline != null) {
                deadline.cancel(false);
                deadline = null;
            }
            if (reused && !over.heard && SAFE_AGAIN.contains(headers.get("X-Amz-Target")) && !loop.isShuttingDown()) {
                whenServed();
                return;
            }
            out.complete(lostOrUnsent(sent));
        }
    }

    /**
     * A connection from {@code loop} to {@code to}, whose answers {@code answers} reads: HTTPS to another node's public
     * port when this one's speaks it; plain HTTP to this node's own server, on loopback.
     */
    private ChannelFuture connect(io.netty.channel.EventLoop loop, Target to, io.netty.channel.ChannelHandler answers) {
        int colon = to.address().lastIndexOf(':');
        String host = to.address().substring(0, colon);
        int port = Integer.parseInt(to.address().substring(colon + 1));
        SslContext tls = to.local() ? null : forwardTls;
        return new Bootstrap()
                .group(loop)
                .channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 2_000)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (tls != null) {
                            ch.pipeline().addLast(tls.newHandler(ch.alloc(), host, port));
                        }
                        if (answers instanceof Exchange exchange) {
                            // Notes that an answer has begun: a call over a kept connection that closes before one
                            // has may be a read to send again (Call.closed).
                            ch.pipeline().addLast(new io.netty.channel.ChannelInboundHandlerAdapter() {
                                @Override
                                public void channelRead(ChannelHandlerContext c, Object msg) {
                                    exchange.heard = true;
                                    c.fireChannelRead(msg);
                                }
                            });
                        }
                        ch.pipeline()
                                .addLast(new HttpClientCodec())
                                .addLast(new HttpObjectAggregator(MAX_ANSWER))
                                .addLast(answers);
                    }
                })
                .connect(host, port);
    }

    /** A request this node made whose connection closed before its answer: unknown once sent, else not done. */
    private static Reply lostOrUnsent(boolean sent) {
        return sent
                ? refusal(ErrorCode.INTERNAL_SERVER_ERROR, "Internal server error")
                : refusal(ErrorCode.SERVICE_UNAVAILABLE, "the cluster's leader closed the connection");
    }

    private static Reply refusal(ErrorCode code, String message) {
        return new Reply(code.httpStatus(), ErrorBody.of(new ApiException(code, message)));
    }

    /**
     * The headers of an answer this node makes of DynamoDB's API: a request id, the CRC32 the SDKs check, and, to a
     * request with an {@code Origin} ({@code cors}), the CORS headers a single node gives.
     */
    private static HttpHeaders apiHeaders(byte[] body, boolean cors) {
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(body);
        HttpHeaders h = new DefaultHttpHeaders()
                .set("x-amzn-RequestId", UUID.randomUUID().toString())
                .set("x-amz-crc32", Long.toString(crc.getValue()));
        if (cors) {
            io.partita.server.netty.HttpSurface.addCors(h);
        }
        return h;
    }

    private static final Set<String> READS = Set.of("GetItem", "BatchGetItem", "Query", "Scan", "ExecuteStatement");
    private static final com.fasterxml.jackson.core.JsonFactory JSON = new com.fasterxml.jackson.core.JsonFactory();

    /**
     * Whether {@code request} is an eventually consistent read: GetItem, BatchGetItem, Query, Scan, or an
     * ExecuteStatement whose statement is a SELECT (its first word; a write never starts so), whose body sets no
     * {@code ConsistentRead} to true (at any depth: BatchGetItem sets it per table). DynamoDB's ExecuteStatement reads
     * eventually consistently unless {@code ConsistentRead} is true, as GetItem does. A body that is not JSON is not
     * one: the leader answers its error.
     */
    static boolean eventualRead(FullHttpRequest request) {
        if (!request.method().equals(HttpMethod.POST)) {
            return false;
        }
        String target = request.headers().get("x-amz-target");
        if (target == null
                || !target.startsWith(TARGET_PREFIX)
                || !READS.contains(target.substring(TARGET_PREFIX.length()))) {
            return false;
        }
        boolean statement = target.equals(TARGET_PREFIX + "ExecuteStatement");
        boolean select = false;
        try (com.fasterxml.jackson.core.JsonParser p = JSON.createParser((java.io.InputStream)
                new io.netty.buffer.ByteBufInputStream(request.content().duplicate()))) {
            if (p.nextToken() != com.fasterxml.jackson.core.JsonToken.START_OBJECT) {
                return false;
            }
            com.fasterxml.jackson.core.JsonToken t;
            while ((t = p.nextToken()) != null) {
                if (statement
                        && t == com.fasterxml.jackson.core.JsonToken.FIELD_NAME
                        && p.currentName().equals("Statement")
                        // A string: the request's own (an attribute of that name in a parameter is an object).
                        && p.nextToken() == com.fasterxml.jackson.core.JsonToken.VALUE_STRING) {
                    select = selects(p.getText());
                } else if (t == com.fasterxml.jackson.core.JsonToken.FIELD_NAME
                        && p.currentName().equals("ConsistentRead")) {
                    com.fasterxml.jackson.core.JsonToken value = p.nextToken();
                    // An object is a key attribute of that name, read on; true, or a value that is no boolean (the
                    // leader answers its error), is not an eventually consistent read.
                    if (value != com.fasterxml.jackson.core.JsonToken.VALUE_FALSE
                            && value != com.fasterxml.jackson.core.JsonToken.START_OBJECT) {
                        return false;
                    }
                }
            }
            return !statement || select;
        } catch (java.io.IOException e) {
            return false;
        }
    }

    /** Whether PartiQL {@code statement}'s first word is SELECT, in any case. */
    static boolean selects(String statement) {
        int i = 0;
        while (i < statement.length() && Character.isWhitespace(statement.charAt(i))) {
            i++;
        }
        int end = i + "SELECT".length();
        return statement.regionMatches(true, i, "SELECT", 0, "SELECT".length())
                && (end == statement.length() || !Character.isLetterOrDigit(statement.charAt(end)));
    }

    /**
     * One client connection's requests, one at a time (pipelined ones wait in the {@link FlowControlHandler} before
     * it), each to the node that serves now (or, an eventually consistent read, to this follower's reader), over a
     * connection to it kept for the next request to the same address. It runs on the client connection's event loop,
     * and so do its connections onwards: no thread is handed anything.
     */
    private final class Forward extends SimpleChannelInboundHandler<FullHttpRequest> {
        /**
         * The connections onwards, by address: the leader's, and this node's own server or reader. Each serves one
         * request at a time, the one on its way, and is kept for the next to the same address.
         */
        private final Map<String, Channel> upstreams = new java.util.HashMap<>(4);
        /** The connection the request on its way went to (or goes to, while it connects). */
        private Channel upstream;
        /** The client connection while one of its requests is on its way, else null. */
        private ChannelHandlerContext waiting;
        /** The request on its way to this follower's reader (retained), else null: see {@link #askLeader}. */
        private FullHttpRequest again;
        /** The request on its way that may be placed in a table's own group (retained), else null: {@link #places}. */
        private FullHttpRequest placing;

        private boolean waitingKeepAlive;
        /** The request waiting here for a node that serves it (retained), else null: see {@link #awaitServing}. */
        private FullHttpRequest held;
        /**
         * The client's request on its way to another node (retained), else null: sent again if that node answers that
         * none serves it from there ({@link #UNSERVED}), until {@link #servedBy}.
         */
        private FullHttpRequest resend;
        /** Until when ({@link System#nanoTime}) the request on its way may wait for a node that serves it. */
        private long servedBy;
        /** Whether the request on its way came forwarded by another node. */
        private boolean forwardedHere;
        /** Whether the request on its way came from a browser (an {@code Origin}): its answers carry CORS headers. */
        private boolean cors;
        /** Whether the client of the request on its way accepts gzip: the router's own answers to it are so. */
        private boolean gzip;

        private ScheduledFuture<?> deadline;

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            boolean keepAlive = HttpUtil.isKeepAlive(request);
            cors = request.headers().contains(HttpHeaderNames.ORIGIN);
            gzip = io.partita.server.netty.HttpSurface.acceptsGzip(
                    request.headers().get(HttpHeaderNames.ACCEPT_ENCODING));
            if (request.method().equals(HttpMethod.GET) && request.uri().equals("/cluster")) {
                // Any origin may read it: the console served by one node asks every other node for its view.
                answer(
                        ctx,
                        keepAlive,
                        200,
                        "application/json",
                        status.get().getBytes(StandardCharsets.UTF_8),
                        new DefaultHttpHeaders().set(HttpHeaderNames.ACCESS_CONTROL_ALLOW_ORIGIN, "*"));
                return;
            }
            if (request.method().equals(HttpMethod.GET) && request.uri().equals("/cluster/metrics")) {
                io.partita.server.metrics.PartitaMetrics.Scrape scrape = metrics.scrape();
                answer(ctx, keepAlive, 200, scrape.contentType(), scrape.body(), null);
                return;
            }
            boolean ranges = request.uri().equals(RANGES_PATH);
            if (request.method().equals(HttpMethod.POST)
                    && (ranges || request.uri().equals(MEMBERS_PATH))
                    && members != null
                    && (ranges || members.leads())) {
                // Made here, on the leader (another node forwards it, as any request); it waits for the group. A move
                // of a range is made on any node.
                Sent change = new Sent(
                        request.method().name(),
                        request.uri(),
                        request.headers().copy(),
                        ByteBufUtil.getBytes(request.content()));
                ctx.channel().config().setAutoRead(false);
                Runnable run = () -> {
                    Made made;
                    try {
                        made = ranges ? members.ranges(change) : members.change(change);
                    } catch (RuntimeException e) {
                        // Not one of the refusals change() answers itself (this node closing, say): the client still
                        // gets an answer, and its connection reads again.
                        made = new Made(500, "{\"message\":" + quoted("the change failed: " + e) + "}");
                    }
                    Made answer = made;
                    ctx.executor()
                            .execute(() -> answer(
                                    ctx,
                                    keepAlive,
                                    answer.status(),
                                    "application/json",
                                    answer.json().getBytes(StandardCharsets.UTF_8),
                                    null));
                };
                try {
                    (ranges ? rangeChanges : changes).execute(run);
                } catch (java.util.concurrent.RejectedExecutionException busy) {
                    answer(
                            ctx,
                            keepAlive,
                            503,
                            "application/json",
                            "{\"message\":\"moves of ranges are under way on this node: try again\"}"
                                    .getBytes(StandardCharsets.UTF_8),
                            null);
                }
                return;
            }
            String forwardedBy = request.headers().get(FORWARDED);
            forwardedHere = forwardedBy != null;
            servedBy = System.nanoTime() + LEADER_WAIT_MILLIS * 1_000_000;
            if (tables != null && forwardedBy == null) {
                request.headers().remove(PLACED); // the router's own marks, never a client's
                request.headers().remove(GROUP);
                request.headers().remove(io.partita.server.op.CutTables.HEADER);
            }
            Target to = null;
            boolean toReader = false;
            if (reads != null && forwardedBy == null) {
                Target reader = reads.apply(request);
                if (reader != null && eventualRead(request)) {
                    to = reader;
                    toReader = true;
                }
            }
            if (to == null) {
                to = target.apply(request);
            }
            if (to == null) {
                // No node serves it that this one knows of: it waits for one, a while, rather than being refused. A
                // request another node forwarded here waits only for this node's own server (this node leads its group,
                // and opens its engine), never to be forwarded again.
                ctx.channel().config().setAutoRead(false);
                waiting = ctx;
                waitingKeepAlive = keepAlive;
                held = request.retain();
                awaitServing(ctx, held, servedBy);
                return;
            }
            if (to != null && to.refusal() != null) {
                error(
                        ctx,
                        keepAlive,
                        cors,
                        gzip,
                        to.refusal().code(),
                        to.refusal().getMessage());
                return;
            }
            if (to.spreads()) {
                ctx.channel().config().setAutoRead(false);
                waiting = ctx;
                waitingKeepAlive = keepAlive;
                spread(ctx, request);
                return;
            }
            if (to == null || (!to.local() && forwardedBy != null)) {
                unserved(ctx, keepAlive, cors, gzip, true);
                return;
            }
            // One request of a connection at a time, so that answers leave in the order the requests came.
            ctx.channel().config().setAutoRead(false);
            waiting = ctx;
            waitingKeepAlive = keepAlive;
            if (toReader) {
                // To this follower's reader: kept, to be asked of the leader if the reader does not know its table.
                again = request.retain();
            }
            dispatch(ctx, request, to);
        }

        /**
         * Looks again, in a moment, for a node that serves {@code request} (retained, released here), and sends it there
         * once there is one; until {@code until} ({@link System#nanoTime}), after which the answer is a 503.
         */
        private void awaitServing(ChannelHandlerContext ctx, FullHttpRequest request, long until) {
            ctx.executor().schedule(() -> lookAgain(ctx, request, until), LEADER_POLL_MILLIS, TimeUnit.MILLISECONDS);
        }

        private void lookAgain(ChannelHandlerContext ctx, FullHttpRequest request, long until) {
            if (held != request) {
                return; // answered meanwhile, or the connection closed: released there
            }
            Target to;
            try {
                to = target.apply(request);
            } catch (RuntimeException e) {
                to = null; // this node closing, say: no node serves it from here
                until = System.nanoTime();
            }
            if (to != null
                    && to.address() != null
                    && !to.local()
                    && request.headers().contains(FORWARDED)) {
                to = null; // led elsewhere now: the node that forwarded it learns that, and the client retries
                until = System.nanoTime();
            }
            if (to == null && System.nanoTime() - until < 0) {
                awaitServing(ctx, request, until);
                return;
            }
            held = null;
            sendOrRefuse(ctx, request, to);
        }

        /** Sends {@code request} (retained, released here) to {@code to}, or answers 503 when there is none. */
        private void sendOrRefuse(ChannelHandlerContext ctx, FullHttpRequest request, Target to) {
            try {
                if (to == null) {
                    noneServes();
                } else if (to.refusal() != null) {
                    ApiException why = to.refusal();
                    finish(e -> error(e, waitingKeepAlive, cors, gzip, why.code(), why.getMessage()));
                } else if (to.spreads()) {
                    spread(ctx, request);
                } else {
                    dispatch(ctx, request, to);
                }
            } finally {
                request.release();
            }
        }

        /**
         * Hands the request on its way, a batch over several groups, to {@link Tables#spread} (its parts copied: the
         * request is released once this returns), and answers what that answers.
         */
        private void spread(ChannelHandlerContext ctx, FullHttpRequest request) {
            Sent copy = new Sent(
                    request.method().name(),
                    request.uri(),
                    request.headers().copy(),
                    ByteBufUtil.getBytes(request.content()));
            boolean cors = this.cors;
            boolean gzip = this.gzip;
            // Compressed for a client that accepts it, as a server's own answer is (HttpSurface), off the event loops
            // (a batch's answer may be megabytes): its CRC is the compressed body's, as DynamoDB's is.
            tables.spread(copy)
                    .exceptionally(e -> new Reply(
                            500,
                            ErrorBody.of(new ApiException(ErrorCode.INTERNAL_SERVER_ERROR, "Internal server error"))))
                    .thenApplyAsync(
                            reply -> new Reply(
                                    reply.status(),
                                    gzip && reply.body().length > 0
                                            ? io.partita.server.netty.HttpSurface.gzip(reply.body())
                                            : reply.body()),
                            gzip ? java.util.concurrent.ForkJoinPool.commonPool() : Runnable::run)
                    .thenAccept(reply -> ctx.executor().execute(() -> {
                        HttpHeaders headers = apiHeaders(reply.body(), cors);
                        if (gzip && reply.body().length > 0) {
                            headers.set(HttpHeaderNames.CONTENT_ENCODING, "gzip");
                        }
                        finish(c -> answer(
                                c,
                                waitingKeepAlive,
                                reply.status(),
                                "application/x-amz-json-1.0",
                                reply.body(),
                                headers));
                    }));
        }

        /** Answers the request on its way that no node serves it: a 503, which the SDKs retry. */
        private void noneServes() {
            boolean mark = forwardedHere;
            finish(e -> unserved(e, waitingKeepAlive, cors, gzip, mark));
        }

        /** Sends {@code request} onwards to {@code to}, over the connection kept to it or a new one. */
        private void dispatch(ChannelHandlerContext ctx, FullHttpRequest request, Target to) {
            if (placing == null
                    && tables != null
                    && !request.headers().contains(FORWARDED)
                    && !request.headers().contains(PLACED)
                    && tables.places(request)) {
                // A client's, kept: sent again to its table's own group once the account's group has placed it there
                // (whether it went at once or waited for a node that serves first).
                placing = request.retain();
            }
            if (!to.local() && !forwardedHere && resend == null) {
                resend = request.retain();
            }
            FullHttpRequest out = new DefaultFullHttpRequest(
                    HttpVersion.HTTP_1_1,
                    request.method(),
                    request.uri(),
                    request.content().retainedDuplicate());
            for (Map.Entry<String, String> h : request.headers()) {
                if (!HOP_BY_HOP.contains(h.getKey().toLowerCase(Locale.ROOT))) {
                    out.headers().add(h.getKey(), h.getValue());
                }
            }
            // The client's Host as it sent it: SigV4 signs it, and strict mode verifies it where the request is served.
            String sentHost = request.headers().get(HttpHeaderNames.HOST);
            out.headers().set(HttpHeaderNames.HOST, sentHost != null ? sentHost : to.address());
            out.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, out.content().readableBytes());
            if (!to.local()) {
                out.headers().set(FORWARDED, nodeId);
                if (to.group() != null) {
                    out.headers().set(GROUP, to.group());
                }
            }
            Channel open = upstreams.get(to.address());
            if (open != null && open.isActive()) {
                upstream = open;
                send(out);
                return;
            }
            if (open != null) {
                upstreams.remove(to.address());
                open.close();
            }
            ChannelFuture connecting = connect(ctx.channel().eventLoop(), to, new Answer());
            upstream = connecting.channel();
            upstreams.put(to.address(), upstream);
            connecting.addListener(f -> {
                if (f.isSuccess()) {
                    send(out);
                } else {
                    out.release();
                    if (again != null && waiting != null) {
                        toLeader(); // this follower's reader closed just now
                        return;
                    }
                    // Never reached the serving node: nothing was done.
                    finish(e -> error(
                            e,
                            waitingKeepAlive,
                            cors,
                            gzip,
                            ErrorCode.SERVICE_UNAVAILABLE,
                            "the cluster's leader cannot be reached: " + f.cause()));
                }
            });
        }

        private void send(FullHttpRequest out) {
            Channel to = upstream;
            // A change of the members waits for every group to make it, which may take minutes.
            long seconds = members != null && out.uri().equals(MEMBERS_PATH)
                    ? members.limit().toSeconds() + 30
                    : ANSWER_SECONDS;
            deadline = to.eventLoop().schedule(() -> lost(to), seconds, TimeUnit.SECONDS);
            to.writeAndFlush(out).addListener(f -> {
                if (!f.isSuccess()) {
                    lost(to);
                }
            });
        }

        /**
         * The request was sent, or partly, and its answer will not come: the serving node may have committed it, so
         * its outcome is unknown, as a 500's is.
         */
        private void lost(Channel to) {
            to.close();
            upstreams.values().remove(to);
            if (to != upstream) {
                return; // a connection to a node that served before: no request of now is on it
            }
            if (again != null && waiting != null) {
                toLeader(); // a read, which changes nothing: the reader closed before it answered
                return;
            }
            finish(e ->
                    error(e, waitingKeepAlive, cors, gzip, ErrorCode.INTERNAL_SERVER_ERROR, "Internal server error"));
        }

        /** Answers the request on its way, once, and lets its connection read the next. */
        private void finish(java.util.function.Consumer<ChannelHandlerContext> answer) {
            ChannelHandlerContext ctx = waiting;
            if (ctx == null) {
                return;
            }
            waiting = null;
            // Its connection onwards, if it had one, carries no request now: losing it later answers nothing.
            upstream = null;
            if (again != null) {
                again.release();
                again = null;
            }
            if (placing != null) {
                placing.release();
                placing = null;
            }
            if (held != null) {
                held.release();
                held = null;
            }
            if (resend != null) {
                resend.release();
                resend = null;
            }
            if (deadline != null) {
                deadline.cancel(false);
                deadline = null;
            }
            answer.accept(ctx);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            for (Channel up : upstreams.values()) {
                up.close();
            }
            upstreams.clear();
            if (again != null) {
                again.release();
                again = null;
            }
            if (placing != null) {
                placing.release();
                placing = null;
            }
            if (held != null) {
                held.release();
                held = null;
            }
            if (resend != null) {
                resend.release();
                resend = null;
            }
            super.channelInactive(ctx);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }

        /**
         * When this follower's reader answered a read that it does not know the table or index (a
         * ResourceNotFoundException, or a ValidationException such as an unknown index), sends the read to the leader
         * instead and returns true: the follower applies a new table's definition a moment after the leader made it,
         * and a table DescribeTable calls ACTIVE is never "not found" to its reads. A read changes nothing, so asking
         * again is safe; a read the reader refused for anything else (a throttle) is answered as it is.
         */
        private boolean askLeader(int status, byte[] body, String contentEncoding) {
            if (status != 400 && status != 503) {
                return false;
            }
            byte[] plain = body;
            if (contentEncoding != null
                    && contentEncoding.toLowerCase(Locale.ROOT).contains("gzip")) {
                // The reader compresses its errors for a client that accepts gzip, as any server does.
                try (java.util.zip.GZIPInputStream in =
                        new java.util.zip.GZIPInputStream(new java.io.ByteArrayInputStream(body))) {
                    plain = in.readNBytes(240);
                } catch (java.io.IOException corrupt) {
                    return false; // answered as it is
                }
            }
            String answer = new String(plain, 0, Math.min(plain.length, 240), StandardCharsets.UTF_8);
            boolean ask = status == 400
                    ? answer.contains("#ResourceNotFoundException") || answer.contains("#ValidationException")
                    // A reader whose replica's tables changed while it read (a range moved): the leader knows.
                    : status == 503 && answer.contains(io.partita.storage.StorageEngine.REPLICA_CHANGED);
            if (!ask) {
                return false;
            }
            toLeader();
            return true;
        }

        /**
         * Sends the read on its way to this follower's reader ({@link #again}) to the serving node instead: the reader
         * did not know its table, or closed (it opens again on a new catalog) before it answered, or its replica's
         * tables changed while it read a range's. While no node serves, the answer is a 503, which the SDKs retry.
         */
        private void toLeader() {
            FullHttpRequest request = again;
            again = null;
            if (deadline != null) {
                deadline.cancel(false);
                deadline = null;
            }
            sendOrRefuse(waiting, request, target.apply(request));
        }

        /**
         * Holds the client's request ({@link #resend}) that the node it went to answered {@link #UNSERVED} (it learnt
         * of another leader, or none, since this node chose it), to look again for a node that serves it.
         */
        private void lookAgainForResend() {
            FullHttpRequest request = resend;
            resend = null;
            hold(request, servedBy);
        }

        /**
         * Sends the request on its way ({@link #placing}) to its table's own group, once there is one that serves: the
         * account's group placed the table there. It waits for that group's record and first leader, up to {@link
         * #PLACED_WAIT_MILLIS}, and is never sent back to the account's group ({@link #PLACED}).
         */
        private void toPlaced() {
            FullHttpRequest request = placing;
            placing = null;
            request.headers().set(PLACED, "true");
            hold(request, System.nanoTime() + PLACED_WAIT_MILLIS * 1_000_000);
        }

        /**
         * Holds {@code request} (retained, the answer to it from onwards read) to send it again to the node that serves
         * it, once there is one, until {@code until}.
         */
        private void hold(FullHttpRequest request, long until) {
            if (deadline != null) {
                deadline.cancel(false);
                deadline = null;
            }
            upstream = null;
            held = request;
            awaitServing(waiting, request, until);
        }

        /** The serving node's answers on the connection onwards. */
        private final class Answer extends SimpleChannelInboundHandler<FullHttpResponse> {
            @Override
            protected void channelRead0(ChannelHandlerContext up, FullHttpResponse response) {
                if (up.channel() != upstream) {
                    return;
                }
                byte[] body = ByteBufUtil.getBytes(response.content());
                if (!HttpUtil.isKeepAlive(response)) {
                    up.close();
                }
                if (unserved(response)) {
                    if (resend != null && System.nanoTime() - servedBy < 0) {
                        lookAgainForResend();
                        return;
                    }
                    response.headers().remove(UNSERVED);
                }
                if (again != null) {
                    if (askLeader(
                            response.status().code(), body, response.headers().get(HttpHeaderNames.CONTENT_ENCODING))) {
                        return;
                    }
                    readsServed.increment();
                }
                if (placing != null && response.status().code() == ErrorCode.TABLE_PLACED.httpStatus()) {
                    toPlaced();
                    return;
                }
                finish(ctx -> answer(ctx, waitingKeepAlive, response.status().code(), null, body, response.headers()));
            }

            @Override
            public void channelInactive(ChannelHandlerContext up) {
                lost(up.channel());
            }

            @Override
            public void exceptionCaught(ChannelHandlerContext up, Throwable cause) {
                lost(up.channel());
            }
        }
    }

    /**
     * An error in DynamoDB's shape: a 503 (nothing was done) or a 500 (the outcome is unknown); the SDKs retry both.
     * Its headers are a server's own answer's: a request id, the body's checksum, and for a browser's request ({@code
     * cors}) the CORS headers, without which a browser hides the error from the page; compressed for a client that
     * accepts it ({@code gzip}), as a server's own error is (HttpSurface), its checksum the compressed body's.
     */
    private static void error(
            ChannelHandlerContext ctx, boolean keepAlive, boolean cors, boolean gzip, ErrorCode code, String message) {
        errorAnswer(ctx, keepAlive, cors, gzip, code, message, false);
    }

    /**
     * Answers that no node serves the request from here: a 503, nothing done, as {@link #error} answers; marked
     * {@link #UNSERVED} for the node that {@code forwarded} it.
     */
    private static void unserved(
            ChannelHandlerContext ctx, boolean keepAlive, boolean cors, boolean gzip, boolean forwarded) {
        errorAnswer(ctx, keepAlive, cors, gzip, ErrorCode.SERVICE_UNAVAILABLE, NONE_SERVES, forwarded);
    }

    private static void errorAnswer(
            ChannelHandlerContext ctx,
            boolean keepAlive,
            boolean cors,
            boolean gzip,
            ErrorCode code,
            String message,
            boolean unserved) {
        byte[] body = ErrorBody.of(new ApiException(code, message));
        if (gzip) {
            body = io.partita.server.netty.HttpSurface.gzip(body); // a few hundred bytes: on the event loop
        }
        HttpHeaders headers = apiHeaders(body, cors);
        if (gzip) {
            headers.set(HttpHeaderNames.CONTENT_ENCODING, "gzip");
        }
        if (unserved) {
            headers.set(UNSERVED, "true");
        }
        answer(ctx, keepAlive, code.httpStatus(), "application/x-amz-json-1.0", body, headers);
    }

    /** Whether {@code response} is another node's {@link #unserved} 503. */
    private static boolean unserved(FullHttpResponse response) {
        return response.status().code() == ErrorCode.SERVICE_UNAVAILABLE.httpStatus()
                && response.headers().contains(UNSERVED);
    }

    private static void answer(
            ChannelHandlerContext ctx,
            boolean keepAlive,
            int status,
            String contentType,
            byte[] body,
            HttpHeaders headers) {
        if (ctx.executor().isShuttingDown()) {
            return; // the router is closing; its connections go with it
        }
        FullHttpResponse response = new DefaultFullHttpResponse(
                HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status), Unpooled.wrappedBuffer(body));
        if (headers != null) {
            for (Map.Entry<String, String> h : headers) {
                if (!HOP_BY_HOP.contains(h.getKey().toLowerCase(Locale.ROOT))) {
                    response.headers().add(h.getKey(), h.getValue());
                }
            }
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
        changes.shutdownNow();
        rangeChanges.shutdownNow();
        channel.close().syncUninterruptibly();
        connections.close().awaitUninterruptibly();
        loops.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private static String quoted(String text) {
        return '"'
                + new String(com.fasterxml.jackson.core.io.JsonStringEncoder.getInstance()
                        .quoteAsString(text))
                + '"';
    }
}
