package io.partita.server.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.EventExecutor;
import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.server.admin.AdminRoutes;
import io.partita.server.auth.Credentials;
import io.partita.server.auth.SigV4Verifier;
import io.partita.server.http.ErrorBody;
import io.partita.server.http.RequestIds;
import io.partita.server.route.ApiRequest;
import io.partita.server.route.ApiResponse;
import io.partita.server.route.Dispatcher;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thin HTTP adapter: {@code GET /} answers DynamoDB's health line, {@code POST /} goes to the {@link Dispatcher}, and
 * every answer carries {@code x-amzn-RequestId} and the {@code x-amz-crc32} of its body (the AWS SDKs verify it).
 * Bounded work ({@code OperationHandler.boundedWork}: one item, a table's description) with a body of up to 64 KB
 * runs inline on the event loop (it is served from memory and the unsynced log, and measured faster that way,
 * docs/PERFORMANCE.md); everything else runs on the connection's worker, and so does a request the dispatcher
 * deferred because it would have waited (a held item lock, a commit log waiting for its checkpoint).
 *
 * <p>It also collects each request's body from Netty's decoder straight into one array, up to DynamoDB's 16 MB request
 * limit (a larger declared {@code Content-Length} is refused with 413 before any of the body is read, and the
 * connection closed), and answers {@code Expect: 100-continue}. Netty's aggregator did this through a composite
 * buffer that was then copied into an array anyway (3 % of a GetItem's event-loop time, docs/PERFORMANCE.md).
 */
public final class ApiRequestHandler extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(ApiRequestHandler.class);

    static final int MAX_REQUEST_BYTES = 16 * 1024 * 1024;
    /** A larger body is decoded on the worker: a 400 KB item takes about a millisecond to decode and validate. */
    static final int MAX_INLINE_BODY_BYTES = 64 * 1024;
    /**
     * Requests of one connection waiting for the worker, beyond which the connection is not read until half have been
     * answered: what a client that pipelines without waiting can make the server hold.
     */
    static final int MAX_PIPELINED = 32;

    private static final String TEXT = "text/plain; charset=utf-8";
    private static final byte[] CONTINUE = "HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    private final Dispatcher dispatcher;
    /** The host the health line names when a request has no usable {@code Host}: the region's DynamoDB host. */
    private final String healthHost;

    private final EventExecutor worker;
    private final Predicate<String> inline;
    /** The admin views of an account (null: the console's files, or open mode). */
    private final Function<String, AdminRoutes> admin;

    private final AnswerBatch batch;
    /** The server's count of requests in flight, and whether it is stopping. */
    private final Drain drain;
    /** The server's bounds on requests in flight and on the memory of their bodies. */
    private final Admission admission;
    /** This connection's slow-sender clock, told when a request has arrived whole. */
    private final RequestDeadline deadline;
    /** Counts an inline answer finished once written: one listener for the connection, not one per answer. */
    private final io.netty.channel.ChannelFutureListener finished;

    private ChannelHandlerContext out;
    private int pending;
    /** The request whose body is being collected, or null. */
    private HttpRequest request;
    /** Set by a refusal: the connection closes after its answer, and nothing it still receives is read. */
    private boolean closing;
    /** The client has shut down its sending side: the connection closes once what it sent is answered. */
    private boolean inputClosed;

    private byte[] body;
    private int length;
    /** The declared Content-Length, or 16 MB for a chunked body: the body array never grows past it. */
    private int limit;
    /** Body memory this request holds against the server's bound ({@link Admission}): its array, if over 64 KB. */
    private long reserved;
    /** The request being received is refused for load ({@link Admission}): its body is read and dropped. */
    private boolean shedding;

    /**
     * @param worker the single-threaded executor this connection's operations run on when not inline
     * @param inline which {@code X-Amz-Target}s may run on the event loop
     * @param batch this connection's event loop's answers, flushed together at the end of its pass
     */
    public ApiRequestHandler(
            Dispatcher dispatcher,
            String healthHost,
            EventExecutor worker,
            Predicate<String> inline,
            Function<String, AdminRoutes> admin,
            AnswerBatch batch,
            Drain drain,
            Admission admission,
            RequestDeadline deadline) {
        this.drain = drain;
        this.admission = admission;
        this.deadline = deadline;
        this.finished = f -> drain.finished();
        this.dispatcher = dispatcher;
        this.batch = batch;
        this.admin = admin;
        this.healthHost = healthHost;
        this.worker = worker;
        this.inline = inline;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        out = ctx;
    }

    /** A request whose body never finished arriving is no longer in flight. */
    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (request != null) {
            request = null;
            body = null;
            releaseBody();
            drain.finished();
        }
        ctx.fireChannelInactive();
    }

    /**
     * A client that shuts down its sending side after its requests (half-close, as {@code nc -N} and some HTTP/1.0
     * clients do) still gets their answers: the connection closes once the last is written. A request cut short by the
     * shutdown can never complete and is dropped.
     */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof io.netty.channel.socket.ChannelInputShutdownEvent) {
            inputClosed = true;
            if (request != null) {
                request = null;
                body = null;
                releaseBody();
                drain.finished();
            }
            if (pending == 0) {
                ctx.writeAndFlush(io.netty.buffer.Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
            }
        }
        ctx.fireUserEventTriggered(evt);
    }

    /**
     * A connection that fails under a request (the client reset it, or closed it mid-request) is closed: its client
     * is gone, nothing can be answered, and it is no server error to log loudly. Anything else is logged, then the
     * connection closed.
     */
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof java.io.IOException || cause.getCause() instanceof javax.net.ssl.SSLException) {
            // A reset, or on an HTTPS port a client that is not speaking TLS (or does not trust the certificate).
            log.debug(
                    "connection {} closed by a network error: {}", ctx.channel().remoteAddress(), cause.toString());
        } else {
            log.warn("connection {} failed; closing it", ctx.channel().remoteAddress(), cause);
        }
        ctx.close();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (closing) {
                return;
            }
            if (msg instanceof HttpRequest r) {
                start(ctx, r);
            }
            if (msg instanceof HttpContent content && request != null) {
                if (content.decoderResult().isFailure()) {
                    refuse(ctx, HttpResponseStatus.BAD_REQUEST, "Bad request\n");
                    return;
                }
                append(ctx, content.content());
                if (request != null && msg instanceof LastHttpContent) {
                    deadline.received();
                    HttpRequest complete = request;
                    request = null;
                    if (shedding) {
                        shed(ctx, complete);
                        return;
                    }
                    byte[] all = length == body.length ? body : Arrays.copyOf(body, length);
                    body = null;
                    long held = reserved;
                    reserved = 0;
                    if (all.length <= MAX_INLINE_BODY_BYTES) {
                        // A small body is not counted: the bound on requests in flight covers it.
                        admission.release(held);
                        held = 0;
                    }
                    answer(ctx, complete, all, held);
                }
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    private void start(ChannelHandlerContext ctx, HttpRequest r) {
        request = null;
        shedding = false;
        // Every request started is answered through run() (or abandoned mid-body: channelInactive), which counts it
        // finished.
        drain.started();
        if (r.decoderResult().isFailure()) {
            // Past the decoder's bounds (a 4 KB request line, 16 KB of headers) nothing more of the request is kept.
            Throwable cause = r.decoderResult().cause();
            if (cause instanceof io.netty.handler.codec.http.TooLongHttpLineException) {
                refuse(ctx, HttpResponseStatus.REQUEST_URI_TOO_LONG, "Request-URI too long\n");
            } else if (cause instanceof io.netty.handler.codec.http.TooLongHttpHeaderException) {
                refuse(ctx, HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "Request header fields too large\n");
            } else {
                refuse(ctx, HttpResponseStatus.BAD_REQUEST, "Bad request\n");
            }
            return;
        }
        long declared = HttpUtil.getContentLength(r, -1L);
        if (declared > MAX_REQUEST_BYTES) {
            tooLarge(ctx);
            return;
        }
        String expect = r.headers().get(HttpHeaderNames.EXPECT);
        if (expect != null && !HttpHeaderValues.CONTINUE.contentEqualsIgnoreCase(expect.strip())) {
            refuse(ctx, HttpResponseStatus.EXPECTATION_FAILED, "Expectation failed\n");
            return;
        }
        if (expect != null && r.protocolVersion().compareTo(HttpVersion.HTTP_1_1) >= 0) {
            // Flushed with the pass's other answers (AnswerBatch), like every answer written on the event loop.
            ctx.write(ctx.alloc().directBuffer(CONTINUE.length).writeBytes(CONTINUE));
            batch.flushLater(ctx);
        }
        request = r;
        limit = declared >= 0 ? (int) declared : MAX_REQUEST_BYTES;
        length = 0;
        reserved = 0;
        body = null;
        // Sized for the declared length, but a declared 16 MB is only reserved as it arrives.
        if (!admission.admit() || !grow(Math.min(limit, declared >= 0 ? 1 << 20 : 1024))) {
            shedding = true;
        }
    }

    private void append(ChannelHandlerContext ctx, ByteBuf content) {
        int n = content.readableBytes();
        if (n > limit - length) {
            tooLarge(ctx);
            return;
        }
        if (shedding) {
            length += n;
            return;
        }
        if (n > body.length - length && !grow((int) Math.min(limit, Math.max(length + n, 2L * body.length)))) {
            // Past the memory for bodies: the rest is read and dropped, and the request refused once it has arrived.
            shedding = true;
            body = null;
            releaseBody();
            length += n;
            return;
        }
        content.getBytes(content.readerIndex(), body, length, n);
        length += n;
    }

    /** A body array of {@code capacity}, counted against the server's bound when over 64 KB; false if refused. */
    private boolean grow(int capacity) {
        if (capacity > MAX_INLINE_BODY_BYTES) {
            if (!admission.reserve(capacity - reserved)) {
                return false;
            }
            reserved = capacity;
        }
        body = body == null ? new byte[capacity] : Arrays.copyOf(body, capacity);
        return true;
    }

    private void releaseBody() {
        admission.release(reserved);
        reserved = 0;
    }

    /** DynamoDB's refusal of too many requests, which the SDKs retry: the connection stays open. */
    private void shed(ChannelHandlerContext ctx, HttpRequest request) {
        shedding = false;
        boolean keepAlive = HttpUtil.isKeepAlive(request) && !drain.draining();
        HttpAnswer.Extras extras = HttpSurface.extras(request.headers());
        ApiException error = admission.refuse();
        byte[] json = ErrorBody.of(error);
        String requestId = RequestIds.next();
        run(
                true,
                keepAlive,
                () -> HttpAnswer.encode(
                        ctx.alloc(),
                        error.code().httpStatus(),
                        HttpAnswer.JSON,
                        json,
                        requestId,
                        keepAlive,
                        false,
                        extras));
    }

    /** 413 with DynamoDB's error body; the connection closes, since the rest of the body is left unread. */
    private void tooLarge(ChannelHandlerContext ctx) {
        ApiException error = new ApiException(
                ErrorCode.REQUEST_ENTITY_TOO_LARGE,
                "Request size exceeds the limit of " + MAX_REQUEST_BYTES + " bytes");
        byte[] json = ErrorBody.of(error);
        String requestId = RequestIds.next();
        request = null;
        body = null;
        releaseBody();
        closing = true;
        run(
                true,
                false,
                () -> HttpAnswer.encode(
                        ctx.alloc(),
                        HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE.code(),
                        HttpAnswer.JSON,
                        json,
                        requestId,
                        false,
                        false,
                        HttpAnswer.Extras.NONE));
    }

    /** A plain-text refusal, after which the connection closes: the rest of the request is not read. */
    private void refuse(ChannelHandlerContext ctx, HttpResponseStatus status, String message) {
        request = null;
        body = null;
        releaseBody();
        deadline.received();
        closing = true;
        byte[] text = message.getBytes(StandardCharsets.UTF_8);
        run(
                true,
                false,
                () -> HttpAnswer.encode(
                        ctx.alloc(), status.code(), TEXT, text, null, false, false, HttpAnswer.Extras.NONE));
    }

    /** @param held body memory to give back once the operation has run (non-zero only for a body over 64 KB) */
    private void answer(ChannelHandlerContext ctx, HttpRequest request, byte[] content, long held) {
        // Stopping: answer, then close, so that the client sends its next request elsewhere.
        boolean keepAlive = HttpUtil.isKeepAlive(request) && !drain.draining();
        HttpMethod method = request.method();
        HttpHeaders h = request.headers();
        HttpAnswer.Extras extras = HttpSurface.extras(h);
        boolean api = method.equals(HttpMethod.POST) && !AdminRoutes.handles(request.uri());
        if (!api) {
            // Only an operation reads a body; the rest need it no longer than to check a signature.
            admission.release(held);
        }
        if ((method.equals(HttpMethod.POST) || method.equals(HttpMethod.DELETE))
                && AdminRoutes.handles(request.uri())) {
            String uri = request.uri();
            SigV4Verifier.Request signed = signed(request, content);
            run(false, keepAlive, () -> {
                AdminRoutes.Answer a = admitted(signed, routes -> routes.change(method.name(), uri));
                return HttpAnswer.encode(
                        ctx.alloc(), a.status(), a.contentType(), a.body(), null, keepAlive, false, extras);
            });
        } else if (method.equals(HttpMethod.POST)) {
            String date = h.get("X-Amz-Date");
            String target = h.get("X-Amz-Target");
            String encoding = h.get(HttpHeaderNames.CONTENT_ENCODING);
            boolean compressed = HttpSurface.encoded(encoding);
            String authorization = h.get(HttpHeaderNames.AUTHORIZATION);
            String amzDate = date != null ? date : h.get(HttpHeaderNames.DATE);
            String contentType = h.get(HttpHeaderNames.CONTENT_TYPE);
            String host = h.get(HttpHeaderNames.HOST);
            // A compressed body is inflated on the worker: up to 16 MB of it.
            boolean mayInline = !compressed && content.length <= MAX_INLINE_BODY_BYTES && inline.test(target);
            run(mayInline, keepAlive, () -> {
                ApiResponse result;
                try {
                    byte[] body = compressed ? HttpSurface.decode(encoding, content, MAX_REQUEST_BYTES) : content;
                    result = dispatcher.dispatch(new ApiRequest(
                            target,
                            authorization,
                            amzDate,
                            contentType,
                            host,
                            body,
                            signed(request, content),
                            h.get(io.partita.server.op.CutTables.HEADER)));
                } catch (ApiException e) {
                    result = new ApiResponse(e.code().httpStatus(), ErrorBody.of(e), RequestIds.next());
                } finally {
                    // Non-zero only for a body over 64 KB, which runs once, on the worker.
                    admission.release(held);
                }
                if (result.deferred()) {
                    return null;
                }
                return HttpAnswer.encode(
                        ctx.alloc(),
                        result.status(),
                        HttpAnswer.JSON,
                        result.body(),
                        result.requestId(),
                        keepAlive,
                        false,
                        extras);
            });
        } else if (method.equals(HttpMethod.GET) && AdminRoutes.handles(request.uri())) {
            String uri = request.uri();
            // The console's files hold no data, nor does /cluster (a single node's answer that it is one): served
            // unsigned, so that the page can load and sign the rest.
            String path = pathOf(uri);
            SigV4Verifier.Request signed =
                    io.partita.server.console.ConsoleAssets.handles(path) || path.equals("/cluster")
                            ? null
                            : signed(request, content);
            run(false, keepAlive, () -> {
                String accept = h.get(HttpHeaderNames.ACCEPT);
                AdminRoutes.Answer a = admitted(signed, routes -> routes.get(uri, accept));
                return HttpAnswer.encode(
                        ctx.alloc(), a.status(), a.contentType(), a.body(), null, keepAlive, false, extras);
            });
        } else if (method.equals(HttpMethod.OPTIONS)) {
            // A browser's CORS preflight, before a cross-origin POST.
            HttpAnswer.Extras preflight = HttpSurface.preflight(h);
            run(
                    true,
                    keepAlive,
                    () -> HttpAnswer.encode(ctx.alloc(), 200, TEXT, new byte[0], null, keepAlive, false, preflight));
        } else {
            boolean head = method.equals(HttpMethod.HEAD);
            boolean get = head || method.equals(HttpMethod.GET);
            boolean root = pathOf(request.uri()).equals("/");
            int status = !get ? HttpResponseStatus.METHOD_NOT_ALLOWED.code() : root ? 200 : 404;
            String line = status == 200
                    ? HttpSurface.healthLine(h.get(HttpHeaderNames.HOST), healthHost)
                    : status == 404 ? "Not found\n" : "Method not allowed\n";
            byte[] text = line.getBytes(StandardCharsets.UTF_8);
            run(
                    true,
                    keepAlive,
                    () -> HttpAnswer.encode(ctx.alloc(), status, TEXT, text, null, keepAlive, head, extras));
        }
    }

    private static String pathOf(String uri) {
        int q = uri.indexOf('?');
        return q < 0 ? uri : uri.substring(0, q);
    }

    /** What strict mode verifies: the request as sent (a compressed body as compressed); null in open mode. */
    private SigV4Verifier.Request signed(HttpRequest request, byte[] content) {
        if (!dispatcher.strict()) {
            return null;
        }
        String uri = request.uri();
        int q = uri.indexOf('?');
        return new ApiRequest.Signed(
                request.method().name(),
                pathOf(uri),
                q < 0 ? null : uri.substring(q + 1),
                request.headers()::getAll,
                content);
    }

    /**
     * The admin views' answer when the caller may have one, from the views of the caller's account: anyone's in open
     * mode (one account), a valid signature's in strict mode; otherwise the refusal, as DynamoDB words it.
     */
    private AdminRoutes.Answer admitted(SigV4Verifier.Request signed, Function<AdminRoutes, AdminRoutes.Answer> route) {
        if (signed == null) {
            return route.apply(admin.apply(null));
        }
        Credentials caller;
        try {
            caller = dispatcher.verifyAdmin(signed);
        } catch (ApiException e) {
            return new AdminRoutes.Answer(e.code().httpStatus(), HttpAnswer.JSON, ErrorBody.of(e));
        }
        return route.apply(admin.apply(caller == null ? null : caller.accountId()));
    }

    /**
     * Answers on the event loop when the operation may run inline and nothing of this connection is still with the
     * worker; otherwise on the connection's single-threaded worker. {@code pending} counts worker answers not yet
     * written, so answers to pipelined requests always leave in request order. Only the event loop touches it.
     * Answers are already encoded by {@link HttpAnswer}; there is no HTTP encoder in the pipeline.
     *
     * <p>An inline answer is written and left to the event loop's {@link AnswerBatch}, which flushes the pass's
     * answers together; a worker flushes its own. An inline {@code answer} that returns null was deferred by the
     * dispatcher and is run again, whole, on the worker, where it never returns null.
     */
    private void run(boolean mayInline, boolean keepAlive, Supplier<ByteBuf> answer) {
        boolean close = !keepAlive;
        if (mayInline && pending == 0) {
            ByteBuf encoded = answer.get();
            if (encoded != null) {
                closeAfter(out.write(encoded), close).addListener(finished);
                batch.flushLater(out);
                return;
            }
            // Deferred: it would have waited on the loop. It changed nothing and runs again on the worker.
        }
        if (++pending == MAX_PIPELINED) {
            // Backpressure: no more of this connection is read until half of what waits has been answered.
            out.channel().config().setAutoRead(false);
        }
        worker.execute(() -> {
            ByteBuf encoded;
            try {
                encoded = answer.get();
            } catch (RuntimeException | Error e) {
                // The dispatcher and the admin routes answer every failure themselves; this is what is left (an
                // Error while encoding an error): the connection is closed rather than left without an answer.
                log.error(
                        "an answer on connection {} failed; closing it",
                        out.channel().remoteAddress(),
                        e);
                out.close();
                drain.finished();
                return;
            }
            closeAfter(out.writeAndFlush(encoded), close).addListener(f -> {
                if (--pending == MAX_PIPELINED / 2 && !out.channel().config().isAutoRead()) {
                    out.channel().config().setAutoRead(true);
                }
                if (pending == 0 && inputClosed) {
                    out.close();
                }
                drain.finished();
            });
        });
    }

    private static ChannelFuture closeAfter(ChannelFuture future, boolean close) {
        if (close) {
            future.addListener(ChannelFutureListener.CLOSE);
        }
        return future;
    }
}
