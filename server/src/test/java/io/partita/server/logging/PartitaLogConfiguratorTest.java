package io.partita.server.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import org.junit.jupiter.api.Test;

class PartitaLogConfiguratorTest {
    private static Level ratisLevel(String configured) {
        String before = System.getProperty("partita.log.ratis");
        LoggerContext context = new LoggerContext();
        try {
            if (configured == null) {
                System.clearProperty("partita.log.ratis");
            } else {
                System.setProperty("partita.log.ratis", configured);
            }
            PartitaLogConfigurator configurator = new PartitaLogConfigurator();
            configurator.setContext(context);
            configurator.configure(context);
            return context.getLogger("org.apache.ratis.server.impl.FollowerState")
                    .getEffectiveLevel();
        } finally {
            context.stop();
            if (before == null) {
                System.clearProperty("partita.log.ratis");
            } else {
                System.setProperty("partita.log.ratis", before);
            }
        }
    }

    @Test
    void ratisLogsItsWarningsUnlessToldOtherwise() {
        // The environment may set PARTITA_RATIS_LOG_LEVEL; the property, set here, goes before it.
        assertThat(ratisLevel("INFO")).isEqualTo(Level.INFO);
        assertThat(ratisLevel("ERROR")).isEqualTo(Level.ERROR);
        if (System.getenv("PARTITA_RATIS_LOG_LEVEL") == null) {
            assertThat(ratisLevel(null)).isEqualTo(Level.WARN);
        }
    }
}
