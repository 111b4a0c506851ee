package io.partita.server.netty;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.EventExecutorGroup;
import io.partita.server.admin.AdminRoutes;
import io.partita.server.route.Dispatcher;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The HTTP/1.1 pipeline: an idle timeout, the slow-sender deadline ({@link RequestDeadline}), Netty's request
 * decoder, and the API handler, which collects bodies (up to
 * 16 MB), answers 100-continue and writes already encoded answers ({@link HttpAnswer}). Each connection is pinned to
 * one single-threaded worker for the operations that do not run on the event loop, so pipelined requests are answered
 * in order, and shares its event loop's {@link AnswerBatch}.
 */
public final class PartitaChannelInitializer extends ChannelInitializer<SocketChannel> {
    private final Dispatcher dispatcher;
    private final String healthHost;
    private final EventExecutorGroup workers;
    private final Predicate<String> inline;
    /** The admin views of an account (null: the console's files, or open mode). */
    private final Function<String, AdminRoutes> admin;

    private final Drain drain;
    private final Admission admission;
    /** HTTPS, or null for plain HTTP. */
    private final SslContext tls;

    private final Map<EventLoop, AnswerBatch> batches = new ConcurrentHashMap<>();

    public PartitaChannelInitializer(
            Dispatcher dispatcher,
            String region,
            EventExecutorGroup workers,
            Predicate<String> inline,
            Function<String, AdminRoutes> admin,
            Drain drain,
            Admission admission,
            SslContext tls) {
        this.tls = tls;
        this.admission = admission;
        this.drain = drain;
        this.dispatcher = dispatcher;
        this.admin = admin;
        this.inline = inline;
        this.healthHost = "dynamodb." + region + ".amazonaws.com";
        this.workers = workers;
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        ChannelPipeline p = ch.pipeline();
        if (tls != null) {
            p.addLast("tls", tls.newHandler(ch.alloc()));
        }
        p.addLast("idle", new IdleStateHandler(0, 0, 300, TimeUnit.SECONDS) {
            @Override
            protected void channelIdle(
                    io.netty.channel.ChannelHandlerContext ctx, io.netty.handler.timeout.IdleStateEvent evt) {
                ctx.close();
            }
        });
        RequestDeadline deadline =
                new RequestDeadline(admission.limits().requestTimeout().toNanos());
        p.addLast("deadline", deadline);
        p.addLast(
                "decoder",
                new HttpRequestDecoder(new HttpDecoderConfig()
                        .setMaxInitialLineLength(4096)
                        .setMaxHeaderSize(16 * 1024)
                        .setMaxChunkSize(64 * 1024)));
        AnswerBatch batch = batches.computeIfAbsent(ch.eventLoop(), loop -> new AnswerBatch(loop));
        p.addLast(
                "api",
                new ApiRequestHandler(
                        dispatcher, healthHost, workers.next(), inline, admin, batch, drain, admission, deadline));
    }
}
