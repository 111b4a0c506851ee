package io.partita.server.logging;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URL;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The server's artefact must not take over the logging of an application that embeds it: it registers no Logback
 * configurator (this module's tests register one of their own, from test resources).
 */
class LoggingOwnershipTest {
    private static final String SERVICE = "META-INF/services/ch.qos.logback.classic.spi.Configurator";

    @Test
    void theLibraryRegistersNoLogbackConfigurator() throws Exception {
        List<URL> registrations = Collections.list(getClass().getClassLoader().getResources(SERVICE));
        assertThat(registrations).isNotEmpty(); // the tests' own
        assertThat(registrations).allSatisfy(u -> assertThat(u.toString()).doesNotContain("/target/classes/"));
    }
}
