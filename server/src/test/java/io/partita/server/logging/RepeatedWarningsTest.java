package io.partita.server.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RepeatedWarningsTest {
    private static final long INTERVAL = Duration.ofSeconds(10).toNanos();
    private static final String FAILED = "{}: Follower failed (request=null, errorCount={})";
    private static final String APPENDER = "org.apache.ratis.grpc.server.GrpcLogAppender";

    private final LoggerContext context = new LoggerContext();
    private final ListAppender<ILoggingEvent> seen = new ListAppender<>();
    private final AtomicLong now = new AtomicLong(-123_456_789L);
    private RepeatedWarnings filter;

    @BeforeEach
    void setUp() {
        seen.setContext(context);
        seen.start();
        Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.INFO);
        root.addAppender(seen);
        filter = new RepeatedWarnings("org.apache.ratis", Duration.ofSeconds(10), 3, now::get);
        filter.setContext(context);
        filter.start();
        context.addTurboFilter(filter);
    }

    @AfterEach
    void tearDown() {
        context.stop();
    }

    private List<String> lines() {
        return seen.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    }

    @Test
    void aBurstsFirstFewPassAndTheNextIntervalSaysHowManyWereHeldBack() {
        Logger appender = context.getLogger(APPENDER);
        for (int i = 0; i < 100; i++) {
            appender.warn(FAILED, "n1", i);
        }
        assertThat(lines())
                .containsExactly(
                        "n1: Follower failed (request=null, errorCount=0)",
                        "n1: Follower failed (request=null, errorCount=1)",
                        "n1: Follower failed (request=null, errorCount=2)");

        now.addAndGet(INTERVAL - 1);
        appender.warn(FAILED, "n1", 100);
        assertThat(lines()).hasSize(3);
        now.addAndGet(1);
        appender.warn(FAILED, "n1", 101);
        assertThat(lines())
                .hasSize(5)
                .endsWith(
                        "held back 98 more warnings like \"" + FAILED + "\" from " + APPENDER + " in 10 s",
                        "n1: Follower failed (request=null, errorCount=101)");
    }

    @Test
    void countsHeldBackAreToldWhenTheirIntervalIsOverEvenIfNoMoreCome() {
        Logger appender = context.getLogger(APPENDER);
        for (int i = 0; i < 10; i++) {
            appender.warn(FAILED, "n1", i);
        }
        filter.flush();
        assertThat(lines()).hasSize(3);
        now.addAndGet(INTERVAL);
        filter.flush();
        assertThat(lines())
                .hasSize(4)
                .last()
                .isEqualTo("held back 7 more warnings like \"" + FAILED + "\" from " + APPENDER + " in 10 s");
        // Told and forgotten: the next burst starts afresh, and a flush with nothing held back says nothing.
        appender.warn(FAILED, "n1", 10);
        now.addAndGet(INTERVAL);
        filter.flush();
        assertThat(lines()).hasSize(5).last().isEqualTo("n1: Follower failed (request=null, errorCount=10)");
    }

    @Test
    void otherKindsErrorsOtherLoggersAndWarningsTheLoggerDropsAreLeftAlone() {
        Logger appender = context.getLogger(APPENDER);
        for (int i = 0; i < 5; i++) {
            appender.error("{}: broken ({})", "n1", i);
        }
        appender.warn("{}: Timed out appendEntries ({})", "n1", 5);
        Logger ours = context.getLogger("io.partita.server.cluster.ClusterMember");
        for (int i = 0; i < 5; i++) {
            ours.warn("node {} stops serving", "n" + i);
        }
        assertThat(lines()).hasSize(11);

        // A logger set above WARN drops them before any is counted: none is held back, none told of.
        appender.setLevel(Level.ERROR);
        for (int i = 0; i < 10; i++) {
            appender.warn(FAILED, "n1", i);
        }
        appender.setLevel(null);
        appender.warn(FAILED, "n1", 10);
        now.addAndGet(INTERVAL);
        filter.flush();
        assertThat(lines()).hasSize(12).last().isEqualTo("n1: Follower failed (request=null, errorCount=10)");
    }
}
