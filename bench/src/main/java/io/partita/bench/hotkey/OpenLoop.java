package io.partita.bench.hotkey;

import io.netty.channel.EventLoop;
import io.partita.bench.load.HttpConnection;
import io.partita.bench.load.HttpConnection.Response;
import io.partita.bench.load.Workload.Bytes;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Sends requests open loop at a fixed rate over a pool of keep-alive connections that all live on one event loop, so
 * the schedule, the pool and the counters need no locks.
 *
 * <p>Request {@code i} of a step falls due at {@code start + i / rate}, whatever happened to the requests before it:
 * a slow answer ties up one connection, not the schedule. A due request takes any idle connection; if none is idle
 * it waits for the next one to come back, and requests still waiting when the step ends are reported as unsent (the
 * pool was too small for the latency). Each request is one of the {@link HotKeyRequests}, hot or cold by
 * {@link HotKeyRequests#isHot}.
 */
final class OpenLoop {
    /** Requests due within this much are sent now rather than through a timer that would fire later. */
    private static final long EARLY_NANOS = 200_000;
    /** How long a step waits for its last answers before it counts them as unfinished. */
    private static final long DRAIN_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final EventLoop loop;
    private final List<HttpConnection> connections = new ArrayList<>();
    private final ArrayDeque<HttpConnection> idle = new ArrayDeque<>();
    private final HotKeyRequests requests;
    private final SplittableRandom rnd;
    private final Bytes body = new Bytes();
    private Step current;

    /** Opens {@code connections} connections, all on one event loop of {@code transport}. */
    OpenLoop(HttpConnection.Transport transport, int connections, HotKeyRequests requests, long seed) {
        this.requests = requests;
        this.rnd = new SplittableRandom(seed);
        for (int i = 0; i < connections; i++) {
            HttpConnection c = transport.connect();
            this.connections.add(c);
            idle.add(c);
        }
        this.loop = this.connections.get(0).loop();
        if (this.connections.stream().anyMatch(c -> c.loop() != loop)) {
            this.connections.forEach(HttpConnection::close);
            throw new IllegalStateException("the transport must have exactly one event loop");
        }
    }

    /** Runs one step at {@code requestsPerSecond} for {@code seconds}, blocking until its answers are in. */
    ClientCounts run(double requestsPerSecond, double sharePercent, double seconds)
            throws InterruptedException, ExecutionException, TimeoutException {
        if (!(requestsPerSecond > 0)) throw new IllegalArgumentException("the request rate must be positive");
        Step step = new Step(requestsPerSecond, sharePercent, (long) (seconds * 1e9));
        loop.execute(step::start);
        return step.done.get((long) (seconds * 1e9) + DRAIN_NANOS + TimeUnit.SECONDS.toNanos(30), TimeUnit.NANOSECONDS);
    }

    void close() {
        loop.execute(() -> connections.forEach(HttpConnection::close));
    }

    /** A connection is free again: back to the pool, and straight on to any request that is waiting for one. */
    private void release(HttpConnection c) {
        idle.add(c);
        if (current != null) current.drain();
    }

    /** Replaces a broken connection's channel; the connection rejoins the pool once connected. */
    private void reconnect(HttpConnection c) {
        c.close();
        c.connectNow().whenComplete((v, e) -> {
            if (e == null) {
                loop.execute(() -> release(c));
            } else {
                loop.schedule(() -> reconnect(c), 500, TimeUnit.MILLISECONDS);
            }
        });
    }

    /** One step's schedule and tally; every method runs on the event loop. */
    private final class Step {
        final double rate;
        final double share;
        final long durationNanos;
        final ClientCounts.Tally tally = new ClientCounts.Tally();
        final CompletableFuture<ClientCounts> done = new CompletableFuture<>();
        long start;
        long end;
        long due; // requests that have fallen due so far; the next one is due at intended(due)
        long waiting; // due but not yet sent
        long unsent = -1; // set when sending stops
        int inFlight;

        Step(double rate, double share, long durationNanos) {
            this.rate = rate;
            this.share = share;
            this.durationNanos = durationNanos;
        }

        void start() {
            current = this;
            start = System.nanoTime();
            end = start + durationNanos;
            tick();
        }

        long intended(long i) {
            return start + (long) (i * 1e9 / rate);
        }

        void tick() {
            if (current != this) return;
            long now = System.nanoTime();
            long horizon = Math.min(now + EARLY_NANOS, end);
            for (; intended(due) < horizon; due++) waiting++;
            drain();
            if (now >= end) {
                stopSending();
            } else {
                long next = Math.min(intended(due), end);
                loop.schedule(this::tick, Math.max(0, next - now), TimeUnit.NANOSECONDS);
            }
        }

        void drain() {
            while (waiting > 0 && !idle.isEmpty()) {
                HttpConnection c = idle.poll();
                if (!c.active()) {
                    reconnect(c);
                    continue;
                }
                waiting--;
                requests.request(HotKeyRequests.isHot(tally.sent, share), rnd, body);
                tally.sent++;
                inFlight++;
                c.send(requests.target(), body, false).whenComplete((r, e) -> answered(c, r, e));
            }
        }

        void answered(HttpConnection c, Response r, Throwable e) {
            if (current == this) {
                inFlight--;
                if (e == null) {
                    tally.answered(r);
                } else {
                    tally.failed(e);
                }
            }
            if (e == null) {
                release(c);
            } else {
                reconnect(c);
            }
            if (current == this && unsent >= 0 && inFlight == 0) complete();
        }

        void stopSending() {
            unsent = waiting;
            waiting = 0;
            if (inFlight == 0) {
                complete();
            } else {
                loop.schedule(this::complete, DRAIN_NANOS, TimeUnit.NANOSECONDS);
            }
        }

        void complete() {
            if (current != this) return;
            current = null;
            done.complete(tally.freeze(durationNanos / 1e9, unsent, inFlight));
        }
    }
}
