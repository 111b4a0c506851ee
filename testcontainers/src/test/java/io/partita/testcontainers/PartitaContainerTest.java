package io.partita.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.wait.strategy.HttpWaitStrategy;
import org.testcontainers.containers.wait.strategy.WaitStrategyTarget;

/**
 * What needs no container engine: the image, port, flags and readiness check a {@code PartitaContainer} is set up
 * with, and that its wait strategy accepts Partita's health line (served here by a stand-in on a real socket) and
 * nothing else. {@link PartitaContainerIT} starts the real image where an engine runs.
 */
class PartitaContainerTest {
    @Test
    void exposesPartitasPortAndStartsInMemoryByDefault() {
        try (PartitaContainer c = new PartitaContainer()) {
            assertThat(c.image().asCanonicalNameString()).isEqualTo("partita:latest");
            assertThat(c.getExposedPorts()).containsExactly(8000);
            assertThat(c.getCommandParts()).containsExactly("--in-memory");
        }
        try (PartitaContainer c = new PartitaContainer("registry.example/partita:1.0")
                .withPersistence()
                .withFlags("--throughput", "off")) {
            assertThat(c.image().asCanonicalNameString()).isEqualTo("registry.example/partita:1.0");
            assertThat(c.getCommandParts()).containsExactly("--throughput", "off");
            assertThat(c.flags()).containsExactly("--throughput", "off");
        }
    }

    @Test
    void itIsReadyOnceTheHealthLineAnswers() throws Exception {
        assertThat(readyAgainst(200, "healthy: dynamodb.us-east-1.amazonaws.com\n"))
                .isTrue();
        assertThat(readyAgainst(200, "starting\n")).isFalse();
        assertThat(readyAgainst(503, "healthy\n")).isFalse();
    }

    /** Whether the container's wait strategy accepts a server answering {@code GET /} with this. */
    private static boolean readyAgainst(int status, String body) throws Exception {
        com.sun.net.httpserver.HttpServer server =
                com.sun.net.httpserver.HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            byte[] b = body.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(status, b.length);
            exchange.getResponseBody().write(b);
            exchange.close();
        });
        server.setExecutor(Executors.newSingleThreadExecutor());
        server.start();
        int port = server.getAddress().getPort();
        try {
            HttpWaitStrategy wait = PartitaContainer.healthLine();
            wait.withStartupTimeout(java.time.Duration.ofSeconds(2));
            try {
                wait.waitUntilReady(new StandIn(port));
                return true;
            } catch (org.testcontainers.containers.ContainerLaunchException e) {
                return false;
            }
        } finally {
            server.stop(0);
        }
    }

    /** A "container" whose port 8000 is the stand-in's. */
    private record StandIn(int port) implements WaitStrategyTarget {
        @Override
        public String getHost() {
            return "127.0.0.1";
        }

        @Override
        public Integer getMappedPort(int originalPort) {
            return port;
        }

        @Override
        public java.util.List<Integer> getExposedPorts() {
            return java.util.List.of(8000);
        }

        @Override
        public com.github.dockerjava.api.command.InspectContainerResponse getContainerInfo() {
            return new com.github.dockerjava.api.command.InspectContainerResponse();
        }

        @Override
        public boolean isRunning() {
            return true;
        }
    }
}
