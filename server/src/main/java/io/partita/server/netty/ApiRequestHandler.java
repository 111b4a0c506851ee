package io.partita.server.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.concurrent.EventExecutor;
import io.partita.server.admin.AdminRoutes;
import io.partita.server.route.ApiRequest;
import io.partita.server.route.ApiResponse;
import io.partita.server.route.Dispatcher;
import java.nio.charset.StandardCharsets;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.zip.CRC32;

/**
 * Thin HTTP adapter: {@code GET /} answers DynamoDB's health line, {@code POST /} goes to the {@link Dispatcher}, and
 * every answer carries {@code x-amzn-RequestId} and the {@code x-amz-crc32} of its body (the AWS SDKs verify it).
 * Short single-item operations run inline on the event loop (they are served from memory and the unsynced WAL, and
 * measured faster that way, docs/PERFORMANCE.md); everything else runs on the connection's worker.
 */
public final class ApiRequestHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    static final String JSON = "application/x-amz-json-1.0";

    private final Dispatcher dispatcher;
    private final String healthLine;
    private final EventExecutor worker;
    private final Predicate<String> inline;
    private final AdminRoutes admin;
    private int pending;

    /**
     * @param worker the single-threaded executor this connection's operations run on when not inline
     * @param inline which {@code X-Amz-Target}s may run on the event loop
     */
    public ApiRequestHandler(
            Dispatcher dispatcher,
            String healthLine,
            EventExecutor worker,
            Predicate<String> inline,
            AdminRoutes admin) {
        this.dispatcher = dispatcher;
        this.admin = admin;
        this.healthLine = healthLine;
        this.worker = worker;
        this.inline = inline;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        if (request.method().equals(HttpMethod.POST)) {
            HttpHeaders h = request.headers();
            String date = h.get("X-Amz-Date");
            String target = h.get("X-Amz-Target");
            ApiRequest api = new ApiRequest(
                    target,
                    h.get(HttpHeaderNames.AUTHORIZATION),
                    date != null ? date : h.get(HttpHeaderNames.DATE),
                    h.get(HttpHeaderNames.CONTENT_TYPE),
                    h.get(HttpHeaderNames.HOST),
                    ByteBufUtil.getBytes(request.content()));
            run(
                    ctx,
                    inline.test(target),
                    () -> {
                        ApiResponse result = dispatcher.dispatch(api);
                        return json(HttpResponseStatus.valueOf(result.status()), result.body(), result.requestId());
                    },
                    keepAlive);
        } else if (request.method().equals(HttpMethod.GET) && AdminRoutes.handles(request.uri())) {
            String uri = request.uri();
            run(ctx, false, () -> adminAnswer(admin.get(uri)), keepAlive);
        } else {
            boolean health =
                    request.method().equals(HttpMethod.GET) || request.method().equals(HttpMethod.HEAD);
            run(
                    ctx,
                    true,
                    () -> health
                            ? text(HttpResponseStatus.OK, healthLine)
                            : text(HttpResponseStatus.METHOD_NOT_ALLOWED, "Method not allowed\n"),
                    keepAlive);
        }
    }

    /**
     * Answers on the event loop when the operation may run inline and nothing of this connection is still with the
     * worker; otherwise on the connection's single-threaded worker. {@code pending} counts worker answers not yet
     * written, so answers to pipelined requests always leave in request order. Only the event loop touches it.
     */
    private void run(
            ChannelHandlerContext ctx, boolean mayInline, Supplier<FullHttpResponse> answer, boolean keepAlive) {
        if (mayInline && pending == 0) {
            respond(ctx, answer.get(), keepAlive);
            return;
        }
        pending++;
        worker.execute(() -> respond(ctx, answer.get(), keepAlive).addListener(f -> pending--));
    }

    private static ChannelFuture respond(ChannelHandlerContext ctx, FullHttpResponse response, boolean keepAlive) {
        HttpUtil.setKeepAlive(response, keepAlive);
        ChannelFuture future = ctx.writeAndFlush(response);
        if (!keepAlive) {
            future.addListener(ChannelFutureListener.CLOSE);
        }
        return future;
    }

    static FullHttpResponse json(HttpResponseStatus status, byte[] body, String requestId) {
        ByteBuf content = Unpooled.wrappedBuffer(body);
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, content);
        CRC32 crc = new CRC32();
        crc.update(body);
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, JSON)
                .set(HttpHeaderNames.CONTENT_LENGTH, body.length)
                .set("x-amzn-RequestId", requestId)
                .set("x-amz-crc32", Long.toString(crc.getValue()));
        return response;
    }

    private static FullHttpResponse adminAnswer(AdminRoutes.Answer a) {
        FullHttpResponse response = new DefaultFullHttpResponse(
                HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(a.status()), Unpooled.wrappedBuffer(a.body()));
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, a.contentType())
                .set(HttpHeaderNames.CONTENT_LENGTH, a.body().length);
        return response;
    }

    private static FullHttpResponse text(HttpResponseStatus status, String body) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        FullHttpResponse response =
                new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(bytes));
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8")
                .set(HttpHeaderNames.CONTENT_LENGTH, bytes.length);
        return response;
    }
}
