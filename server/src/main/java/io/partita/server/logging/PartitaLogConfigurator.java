package io.partita.server.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ConfiguratorRank;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;
import org.slf4j.Logger;

/**
 * The command line's logging: Logback configured in code rather than from {@code logback.xml} (parsing XML cost about
 * 400 ms of the server's start-up, docs/PERFORMANCE.md). Logs go to stderr; {@code PARTITA_LOG_LEVEL} (or {@code
 * -Dpartita.log.level}) sets the level, INFO by default.
 *
 * <p>Only the CLI installs it ({@link #install}): the server's artefact registers no Logback configurator, so an
 * application or test suite that embeds Partita keeps its own logging configuration, and Partita logs through SLF4J
 * into it. A test suite may register this class itself (a {@code META-INF/services} entry, as this project's tests
 * do).
 */
@ConfiguratorRank(ConfiguratorRank.CUSTOM_HIGH_PRIORITY)
public final class PartitaLogConfigurator extends ContextAwareBase implements Configurator {
    /** Replaces whatever configuration Logback found with this one, if Logback is SLF4J's binding; else nothing. */
    public static void install() {
        if (org.slf4j.LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
            context.reset();
            PartitaLogConfigurator c = new PartitaLogConfigurator();
            c.setContext(context);
            c.configure(context);
        }
    }

    @Override
    public ExecutionStatus configure(LoggerContext context) {
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern("%d{HH:mm:ss.SSS} %-5level %logger{20} - %msg%n");
        encoder.start();
        ConsoleAppender<ILoggingEvent> console = new ConsoleAppender<>();
        console.setContext(context);
        console.setName("stderr");
        console.setTarget("System.err");
        console.setEncoder(encoder);
        console.start();
        ch.qos.logback.classic.Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.setLevel(level());
        root.addAppender(console);
        context.getLogger("io.netty").setLevel(Level.WARN);
        context.getLogger("software.amazon").setLevel(Level.WARN);
        // Ratis (cluster mode) logs every election and log segment at INFO; a cluster node's own lines say what
        // matters; PARTITA_RATIS_LOG_LEVEL=INFO shows them, to follow an election or a follower catching up.
        context.getLogger("org.apache.ratis")
                .setLevel(Level.toLevel(
                        System.getProperty("partita.log.ratis", System.getenv("PARTITA_RATIS_LOG_LEVEL")), Level.WARN));
        // Ratis warns once per failed request: a leader whose follower is down, over a hundred lines a second.
        RepeatedWarnings repeated =
                new RepeatedWarnings("org.apache.ratis", java.time.Duration.ofSeconds(10), 5, System::nanoTime);
        repeated.setContext(context);
        repeated.start();
        context.addTurboFilter(repeated);
        context.getLogger(RepeatedWarnings.SUMMARY_LOGGER).setLevel(Level.WARN);
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }

    private static Level level() {
        String configured = System.getProperty("partita.log.level", System.getenv("PARTITA_LOG_LEVEL"));
        return Level.toLevel(configured, Level.INFO);
    }
}
