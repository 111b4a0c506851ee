package io.partita.server.op.txn;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.json.DynamoJson;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code ClientRequestToken}s of one transactional operation: "A client request token is valid for 10 minutes after
 * the first request that uses it is completed. After 10 minutes, any request that uses the same client token is
 * treated as a new request" (Amazon DynamoDB Transactions: How it works, "Idempotency"). A repeat within the window
 * with the same parameters succeeds without writing again; with other parameters it is
 * {@code IdempotentParameterMismatchException}; while the first is still running, {@code
 * TransactionInProgressException}. A request that failed leaves no token behind: its repeat runs anew.
 *
 * <p>The AWS SDKs give every transaction a token, so all of them pass through here. A token keeps a digest of its
 * request (the parameters compared) and what it needs to answer a repeat (its items' keys: up to some kilobytes for
 * a transaction of a hundred items), in order of completion: expired tokens are dropped from the head as new ones
 * arrive, and beyond {@link #MAX_TOKENS} the oldest completed ones go first, early.
 *
 * <p>With a {@link Durable} store (a storage engine's, where each committed transaction's token is written with its
 * writes), a token not held here is looked for there: a repeat that reaches a process other than the first (after a
 * restart, or a cluster's new leader) answers as a repeat, and so does one past {@link #MAX_TOKENS}. A request whose
 * commit's outcome was not known ({@link #unknown}) stays in progress until a repeat comes; the repeat then settles
 * the store (every commit of unknown outcome before it applied, or never to be) and finds the first's record, or
 * none: the first did not commit, and the repeat runs. Without a store such a request stays in progress until a window
 * has passed since it started.
 */
public final class IdempotencyTokens<R> {
    static final long WINDOW_MILLIS = io.partita.storage.write.TransactionTokens.WINDOW_MILLIS;
    /**
     * A bound on the memory the tokens take: a few hundred bytes each for small transactions, tens of megabytes in
     * all. At more than about 170 transactions a second, the oldest are forgotten here before their ten minutes (a
     * {@link Durable} store still has them).
     */
    static final int MAX_TOKENS = 100_000;

    /** Where the tokens of committed requests are kept beyond this process's memory. */
    public interface Durable<R> {
        /** The record of {@code token}'s committed request, or null when none is kept. */
        Stored<R> find(String token);

        /** Returns once every commit of unknown outcome made before has been applied, or never will be. */
        void settle();
    }

    /** A committed request's token as its {@link Durable} store keeps it. */
    public record Stored<R>(byte[] digest, long completedAt, R result) {}

    private final Clock clock;
    private final Durable<R> durable;
    private final LinkedHashMap<String, Token<R>> tokens = new LinkedHashMap<>();

    /**
     * A token's request digest, and once it has committed, its result and when it did; while it has not, whether its
     * commit's outcome was not known, and whether a repeat is settling it.
     */
    private static final class Token<R> {
        final String key;
        final byte[] digest;
        final long startedAt;
        R result;
        long completedAt;
        boolean unknown;
        boolean settling;

        Token(String key, byte[] digest, long startedAt) {
            this.key = key;
            this.digest = digest;
            this.startedAt = startedAt;
        }
    }

    /** Tokens kept in memory alone. */
    public IdempotencyTokens(Clock clock) {
        this(clock, null);
    }

    /** Tokens kept in memory, and looked for in {@code durable} when not there. */
    public IdempotencyTokens(Clock clock, Durable<R> durable) {
        this.clock = clock;
        this.durable = durable;
    }

    /** The digest of a request's parameters (its idempotent ones): their JSON's SHA-256. */
    public static byte[] digest(Object requestWithoutToken) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(DynamoJson.encode(requestWithoutToken));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }

    /**
     * A request's start with a token: the result of the completed request it repeats ({@link #repeated}), or else
     * its own run of the token, which its caller ends with {@link #complete}, {@link #abandon} or {@link #unknown}.
     * Those act on this run alone: not on a later one that took the token meanwhile.
     */
    public static final class Run<R> {
        private final R repeated;
        private final Token<R> entry;

        private Run(R repeated, Token<R> entry) {
            this.repeated = repeated;
            this.entry = entry;
        }

        /** The result of the completed request this one repeats; null when it is to run. */
        public R repeated() {
            return repeated;
        }
    }

    /**
     * Starts the request with {@code token}: a repeat of a completed one (its result), or a run of its own (see {@link
     * Run}).
     */
    public Run<R> begin(String token, byte[] digest) {
        Token<R> mine = null; // the entry of unknown outcome this request settles
        synchronized (this) {
            long now = clock.millis();
            expire(now);
            Token<R> t = current(token, now);
            if (t != null) {
                requireSame(t, digest);
                if (t.result != null) {
                    return new Run<>(t.result, null);
                }
                if (!t.unknown || t.settling || durable == null) {
                    throw inProgress();
                }
                t.settling = true;
                mine = t;
            } else if (durable == null) {
                return run(token, digest, now);
            }
        }
        // Outside the lock: a read of the store, and for a settle a write through it.
        Stored<R> stored;
        try {
            if (mine != null) {
                durable.settle();
            }
            stored = durable.find(token);
        } catch (RuntimeException | Error e) {
            if (mine != null) {
                synchronized (this) {
                    mine.settling = false;
                }
            }
            throw e;
        }
        synchronized (this) {
            long now = clock.millis();
            if (mine != null) {
                mine.settling = false;
            }
            Token<R> t = tokens.get(token);
            if (stored != null && now - stored.completedAt() < WINDOW_MILLIS) {
                if (!Arrays.equals(stored.digest(), digest)) {
                    throw mismatch();
                }
                if (t == null || t == mine || t.result != null) {
                    // Known here from now on, for the rest of its window.
                    Token<R> done = new Token<>(token, stored.digest(), stored.completedAt());
                    done.result = stored.result();
                    done.completedAt = stored.completedAt();
                    tokens.remove(token);
                    tokens.put(token, done);
                }
                return new Run<>(stored.result(), null);
            }
            if (t != null && t != mine) {
                // Another request with the token began meanwhile.
                requireSame(t, digest);
                if (t.result != null) {
                    return new Run<>(t.result, null);
                }
                throw inProgress();
            }
            // New; or the first's commit, of unknown outcome, is settled and wrote nothing: this one runs.
            tokens.remove(token);
            return run(token, digest, now);
        }
    }

    private Run<R> run(String token, byte[] digest, long now) {
        Token<R> t = new Token<>(token, digest, now);
        tokens.put(token, t);
        return new Run<>(null, t);
    }

    /** {@code token}'s entry, unless none or its window has passed (dropped then). */
    private Token<R> current(String token, long now) {
        Token<R> t = tokens.get(token);
        if (t != null && t.result != null && now - t.completedAt >= WINDOW_MILLIS) {
            tokens.remove(token);
            return null;
        }
        return t;
    }

    private static void requireSame(Token<?> t, byte[] digest) {
        if (!Arrays.equals(t.digest, digest)) {
            throw mismatch();
        }
    }

    /** A repeat of a token with other parameters: {@code IdempotentParameterMismatchException}. */
    static ApiException mismatch() {
        // IdempotentParameterMismatchException's description in the API reference; no answer of DynamoDB's with a
        // message has been published.
        return new ApiException(
                ErrorCode.IDEMPOTENT_PARAMETER_MISMATCH,
                "DynamoDB rejected the request because you retried a request with a different payload but with an"
                        + " idempotent token that was already used.");
    }

    /** A repeat while the first request still runs: {@code TransactionInProgressException}. */
    static ApiException inProgress() {
        return new ApiException(
                ErrorCode.TRANSACTION_IN_PROGRESS, "Transaction from previous request is still in progress");
    }

    /** {@code run} committed with {@code result}: its window starts now. */
    public synchronized void complete(Run<R> run, R result) {
        Token<R> t = run.entry;
        if (t != null && tokens.get(t.key) == t) {
            tokens.remove(t.key);
            t.result = result;
            t.completedAt = clock.millis();
            // Re-inserted at the tail: the map stays in order of completion, which is the order of expiry.
            tokens.put(t.key, t);
        }
    }

    /** {@code run} failed, and wrote nothing: the token is free again. */
    public synchronized void abandon(Run<R> run) {
        Token<R> t = run.entry;
        if (t != null && tokens.get(t.key) == t) {
            tokens.remove(t.key);
        }
    }

    /**
     * {@code run} failed in a way that may have committed: it stays in progress, and with a {@link Durable} store a
     * repeat settles it.
     */
    public synchronized void unknown(Run<R> run) {
        Token<R> t = run.entry;
        if (t != null && tokens.get(t.key) == t && t.result == null) {
            t.unknown = true;
        }
    }

    private void expire(long now) {
        Iterator<Map.Entry<String, Token<R>>> it = tokens.entrySet().iterator();
        while (it.hasNext()) {
            Token<R> t = it.next().getValue();
            if (t.result == null) {
                // Running requests sit among the completed ones; one that never completed goes after a window.
                if (now - t.startedAt >= WINDOW_MILLIS) {
                    it.remove();
                }
                continue;
            }
            if (now - t.completedAt < WINDOW_MILLIS && tokens.size() <= MAX_TOKENS) {
                return;
            }
            it.remove();
        }
    }

    synchronized int size() {
        return tokens.size();
    }
}
