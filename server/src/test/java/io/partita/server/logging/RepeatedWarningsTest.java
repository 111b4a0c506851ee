package io.partita.server.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RepeatedWarningsTest {
    private final LoggerContext context = new LoggerContext();
    private final ListAppender<ILoggingEvent> seen = new ListAppender<>();
    private final AtomicLong now = new AtomicLong(123_456_789L);

    @BeforeEach
    void setUp() {
        seen.setContext(context);
        seen.start();
        Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.INFO);
        root.addAppender(seen);
        context.getLogger("org.apache.ratis").setLevel(Level.WARN);
        RepeatedWarnings filter = new RepeatedWarnings("org.apache.ratis", Duration.ofSeconds(10), now::get);
        filter.setContext(context);
        filter.start();
        context.addTurboFilter(filter);
    }

    private java.util.List<String> lines() {
        return seen.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    }

    @Test
    void oneWarningOfAKindPassesPerIntervalAndTheNextSaysHowManyWereHeldBack() {
        Logger appender = context.getLogger("org.apache.ratis.grpc.server.GrpcLogAppender");
        for (int i = 0; i < 100; i++) {
            appender.warn(
                    "{}: Follower failed (request=null, errorCount={}); keep nextIndex ({}) unchanged", "n1", i, i);
        }
        assertThat(lines())
                .containsExactly("n1: Follower failed (request=null, errorCount=0); keep nextIndex (0) unchanged");

        now.addAndGet(Duration.ofSeconds(10).toNanos() - 1);
        appender.warn(
                "{}: Follower failed (request=null, errorCount={}); keep nextIndex ({}) unchanged", "n1", 100, 100);
        assertThat(lines()).hasSize(1);
        now.addAndGet(1);
        appender.warn(
                "{}: Follower failed (request=null, errorCount={}); keep nextIndex ({}) unchanged", "n1", 101, 101);
        assertThat(lines())
                .hasSize(3)
                .endsWith(
                        "100 more like the next from org.apache.ratis.grpc.server.GrpcLogAppender held back",
                        "n1: Follower failed (request=null, errorCount=101); keep nextIndex (101) unchanged");
    }

    @Test
    void otherKindsErrorsAndOtherLoggersPass() {
        Logger appender = context.getLogger("org.apache.ratis.grpc.server.GrpcLogAppender");
        appender.warn("{}: Follower failed ({})", "n1", 1);
        appender.warn("{}: Follower failed ({})", "n1", 2);
        appender.warn("{}: Timed out appendEntries ({})", "n1", 3);
        appender.error("{}: broken ({})", "n1", 4);
        appender.error("{}: broken ({})", "n1", 5);
        appender.info("{}: below the level ({})", "n1", 6);
        Logger ours = context.getLogger("io.partita.server.cluster.ClusterMember");
        ours.warn("node {} stops serving", "n1");
        ours.warn("node {} stops serving", "n2");
        assertThat(lines())
                .containsExactly(
                        "n1: Follower failed (1)",
                        "n1: Timed out appendEntries (3)",
                        "n1: broken (4)",
                        "n1: broken (5)",
                        "node n1 stops serving",
                        "node n2 stops serving");
    }
}
