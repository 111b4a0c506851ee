package io.partita.server.netty;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import java.util.ArrayList;
import java.util.List;

/**
 * The answers one event loop wrote in one pass over its ready connections, flushed together when the pass ends. It
 * began as group commit (one WAL write for the pass before any answer left); since every write is in Partita's log
 * before it is applied ({@code RocksStore}), nothing needs to happen before an answer leaves, and the batch only
 * defers the flushes, as measured with it (docs/PERFORMANCE.md, "Partita's own write-ahead log").
 *
 * <p>The pass ends when the loop turns from I/O to its task queue, where the first answer of the pass put this batch.
 * Only its event loop touches it.
 */
final class AnswerBatch implements Runnable {
    private final EventLoop loop;
    private final List<ChannelHandlerContext> waiting = new ArrayList<>();

    AnswerBatch(EventLoop loop) {
        this.loop = loop;
    }

    /** Flushes {@code ctx}, whose answer is written, at the end of this pass. Called on the event loop only. */
    void flushLater(ChannelHandlerContext ctx) {
        assert loop.inEventLoop();
        if (waiting.isEmpty()) {
            loop.execute(this);
        } else if (waiting.get(waiting.size() - 1) == ctx) {
            return;
        }
        waiting.add(ctx);
    }

    @Override
    public void run() {
        for (ChannelHandlerContext ctx : waiting) {
            ctx.flush();
        }
        waiting.clear();
    }
}
