package io.partita.server.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.util.concurrent.EventExecutor;
import io.partita.server.admin.AdminRoutes;
import io.partita.server.route.ApiRequest;
import io.partita.server.route.ApiResponse;
import io.partita.server.route.Dispatcher;
import java.nio.charset.StandardCharsets;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Thin HTTP adapter: {@code GET /} answers DynamoDB's health line, {@code POST /} goes to the {@link Dispatcher}, and
 * every answer carries {@code x-amzn-RequestId} and the {@code x-amz-crc32} of its body (the AWS SDKs verify it).
 * Short single-item operations run inline on the event loop (they are served from memory and the unsynced WAL, and
 * measured faster that way, docs/PERFORMANCE.md); everything else runs on the connection's worker.
 */
public final class ApiRequestHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final String TEXT = "text/plain; charset=utf-8";

    private final Dispatcher dispatcher;
    private final String healthLine;
    private final EventExecutor worker;
    private final Predicate<String> inline;
    private final AdminRoutes admin;
    private ChannelHandlerContext out;
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
    public void handlerAdded(ChannelHandlerContext ctx) {
        out = ctx.pipeline().context(PartitaChannelInitializer.ENCODER);
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
            run(inline.test(target), keepAlive, () -> {
                ApiResponse result = dispatcher.dispatch(api);
                return HttpAnswer.encode(
                        ctx.alloc(),
                        result.status(),
                        HttpAnswer.JSON,
                        result.body(),
                        result.requestId(),
                        keepAlive,
                        false);
            });
        } else if (request.method().equals(HttpMethod.GET) && AdminRoutes.handles(request.uri())) {
            String uri = request.uri();
            run(false, keepAlive, () -> {
                AdminRoutes.Answer a = admin.get(uri);
                return HttpAnswer.encode(ctx.alloc(), a.status(), a.contentType(), a.body(), null, keepAlive, false);
            });
        } else {
            boolean head = request.method().equals(HttpMethod.HEAD);
            boolean health = head || request.method().equals(HttpMethod.GET);
            byte[] text = (health ? healthLine : "Method not allowed\n").getBytes(StandardCharsets.UTF_8);
            int status = health ? 200 : HttpResponseStatus.METHOD_NOT_ALLOWED.code();
            run(true, keepAlive, () -> HttpAnswer.encode(ctx.alloc(), status, TEXT, text, null, keepAlive, head));
        }
    }

    /**
     * Answers on the event loop when the operation may run inline and nothing of this connection is still with the
     * worker; otherwise on the connection's single-threaded worker. {@code pending} counts worker answers not yet
     * written, so answers to pipelined requests always leave in request order. Only the event loop touches it.
     * Answers are written past the HTTP encoder (which stays in the pipeline for the aggregator's 100-continue and
     * 413 answers), already encoded by {@link HttpAnswer}.
     */
    private void run(boolean mayInline, boolean keepAlive, Supplier<ByteBuf> answer) {
        boolean close = !keepAlive;
        if (mayInline && pending == 0) {
            respond(answer.get(), close);
            return;
        }
        pending++;
        worker.execute(() -> respond(answer.get(), close).addListener(f -> pending--));
    }

    private ChannelFuture respond(ByteBuf answer, boolean close) {
        ChannelFuture future = out.writeAndFlush(answer);
        if (close) {
            future.addListener(ChannelFutureListener.CLOSE);
        }
        return future;
    }
}
