package io.partita.server.netty;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The answers one event loop wrote in one pass over its ready connections, sent together when the pass ends: first
 * every commit so far is made durable, once for all of them ({@code StorageEngine.makeDurable}, one WAL
 * {@code write()} instead of one per request), then each connection is flushed. Until then an answer waits unflushed
 * in its channel. A read waits as well, since it may have seen a commit not yet flushed. If the WAL cannot be written,
 * the waiting connections are closed instead, so no answer claims a write that a crash would lose.
 *
 * <p>The pass ends when the loop turns from I/O to its task queue, where the first answer of the pass put this batch.
 * Only its event loop touches it.
 */
final class AnswerBatch implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(AnswerBatch.class);

    private final EventLoop loop;
    private final Runnable makeDurable;
    private final List<ChannelHandlerContext> waiting = new ArrayList<>();

    AnswerBatch(EventLoop loop, Runnable makeDurable) {
        this.loop = loop;
        this.makeDurable = makeDurable;
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
        boolean durable = false;
        try {
            makeDurable.run();
            durable = true;
        } catch (RuntimeException e) {
            log.error("could not make the WAL durable; closing {} connections unanswered", waiting.size(), e);
        }
        for (ChannelHandlerContext ctx : waiting) {
            if (durable) {
                ctx.flush();
            } else {
                ctx.close();
            }
        }
        waiting.clear();
    }
}
