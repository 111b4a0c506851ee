package io.partita.server.netty;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.AbstractScheduledEventExecutor;
import io.netty.util.concurrent.Ticker;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Slow senders: a request must arrive whole within the timeout of its first byte, or its connection is closed. It sits
 * before the HTTP decoder, so a request trickled in byte by byte — headers or body — is caught; the API handler says
 * when a request is complete ({@link #received}). The clock is read once per request, and each connection checks its
 * deadline a few times per timeout rather than arming a timer per request. An idle connection, between requests, is
 * the idle handler's.
 */
final class RequestDeadline extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(RequestDeadline.class);

    private final long timeoutNanos;
    private boolean receiving;
    private long startedNanos;
    private ScheduledFuture<?> check;
    /** The event loop's clock (a test's {@code EmbeddedChannel} moves it by hand). */
    private Ticker ticker = Ticker.systemTicker();

    RequestDeadline(long timeoutNanos) {
        this.timeoutNanos = timeoutNanos;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        if (ctx.executor() instanceof AbstractScheduledEventExecutor loop) {
            ticker = loop.ticker();
        }
        if (ctx.channel().isActive()) {
            schedule(ctx);
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        schedule(ctx);
        ctx.fireChannelActive();
    }

    private void schedule(ChannelHandlerContext ctx) {
        if (check != null) {
            return;
        }
        long period = Math.max(TimeUnit.MILLISECONDS.toNanos(50), timeoutNanos / 4);
        check = ctx.executor().scheduleAtFixedRate(() -> expire(ctx), period, period, TimeUnit.NANOSECONDS);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (check != null) {
            check.cancel(false);
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!receiving) {
            receiving = true;
            startedNanos = ticker.nanoTime();
        }
        ctx.fireChannelRead(msg);
    }

    /** The request being received has arrived whole (or been refused): the next byte starts the next one's clock. */
    void received() {
        receiving = false;
    }

    private void expire(ChannelHandlerContext ctx) {
        if (!ctx.channel().config().isAutoRead()) {
            // Reading is paused while the connection's earlier requests run: that time is the server's, not the
            // sender's.
            startedNanos = ticker.nanoTime();
            return;
        }
        if (receiving && ticker.nanoTime() - startedNanos > timeoutNanos) {
            log.debug(
                    "connection {} closed: a request took more than {} ms to arrive",
                    ctx.channel().remoteAddress(),
                    TimeUnit.NANOSECONDS.toMillis(timeoutNanos));
            receiving = false;
            ctx.close();
        }
    }
}
