package io.partita.server.wire;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/** Ports for the tests' nodes. */
public final class FreePorts {
    /** The next port {@link #next} tries; from a random start, so that two test JVMs seldom try the same ones. */
    private static final AtomicInteger NEXT =
            new AtomicInteger(ThreadLocalRandom.current().nextInt(12_000));

    private FreePorts() {}

    /**
     * A port free now, below Linux's ephemeral range (32768 up). A port the system hands out for 0 comes from that
     * range, and a connection another node opens meanwhile (gRPC's, a client's) may take it before the node binds it,
     * or while a killed node is down, which then cannot bind it again ("Address already in use"). Each call tries the
     * ports after the last one given, so two calls never give the same one.
     */
    public static int next() throws IOException {
        for (int attempt = 0; attempt < 12_000; attempt++) {
            int port = 20_000 + Math.floorMod(NEXT.getAndIncrement(), 12_000);
            try (ServerSocket s = new ServerSocket()) {
                s.bind(new InetSocketAddress("127.0.0.1", port));
                return port;
            } catch (IOException taken) {
                // another, then
            }
        }
        throw new IOException("no free port from 20000 to 32000");
    }
}
