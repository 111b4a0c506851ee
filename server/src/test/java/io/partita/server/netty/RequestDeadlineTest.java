package io.partita.server.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The slow-sender deadline, on an embedded channel whose clock the test moves: no sleeps. */
class RequestDeadlineTest {
    private static final long TIMEOUT = TimeUnit.SECONDS.toNanos(60);

    private static EmbeddedChannel channel(RequestDeadline deadline) {
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.freezeTime();
        ch.pipeline().addLast(deadline);
        return ch;
    }

    private static void send(EmbeddedChannel ch, String bytes) {
        ch.writeInbound(Unpooled.copiedBuffer(bytes, StandardCharsets.US_ASCII));
        ch.releaseInbound();
    }

    private static void advance(EmbeddedChannel ch, long seconds) {
        ch.advanceTimeBy(seconds, TimeUnit.SECONDS);
        ch.runScheduledPendingTasks();
    }

    @Test
    void aRequestStillArrivingAfterTheTimeoutClosesItsConnection() {
        RequestDeadline deadline = new RequestDeadline(TIMEOUT);
        EmbeddedChannel ch = channel(deadline);
        send(ch, "POST / HTTP/1.1\r\nHost: x\r\n");
        advance(ch, 30);
        send(ch, "Content-Length: 10\r\n");
        advance(ch, 29);
        assertThat(ch.isOpen()).as("59 s after its first byte").isTrue();
        advance(ch, 16);
        assertThat(ch.isOpen()).as("75 s after its first byte").isFalse();
    }

    @Test
    void theClockStartsAgainWithEachRequestAndNotBetweenRequests() {
        RequestDeadline deadline = new RequestDeadline(TIMEOUT);
        EmbeddedChannel ch = channel(deadline);
        send(ch, "POST / HTTP/1.1\r\n");
        advance(ch, 50);
        deadline.received();
        // Idle between requests: the idle handler's business, not this one's.
        advance(ch, 600);
        assertThat(ch.isOpen()).isTrue();
        send(ch, "GET / HTTP/1.1\r\n");
        advance(ch, 50);
        assertThat(ch.isOpen()).isTrue();
        deadline.received();
        advance(ch, 100);
        assertThat(ch.isOpen()).isTrue();
    }

    @Test
    void timeSpentNotReadingIsNotTheSenders() {
        RequestDeadline deadline = new RequestDeadline(TIMEOUT);
        EmbeddedChannel ch = channel(deadline);
        send(ch, "POST / HTTP/1.1\r\n");
        // The server stops reading the connection while its earlier requests run (backpressure).
        ch.config().setAutoRead(false);
        advance(ch, 300);
        assertThat(ch.isOpen()).isTrue();
        ch.config().setAutoRead(true);
        advance(ch, 45);
        assertThat(ch.isOpen()).as("45 s of reading after the pause").isTrue();
        advance(ch, 30);
        assertThat(ch.isOpen()).isFalse();
    }
}
