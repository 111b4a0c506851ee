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
 * arrive, and beyond {@link #MAX_TOKENS} the oldest completed ones go first, early. A request that failed in a way
 * that may have committed stays in progress until a window has passed since it started.
 */
public final class IdempotencyTokens<R> {
    static final long WINDOW_MILLIS = 10 * 60 * 1000;
    /**
     * A bound on the memory the tokens take: a few hundred bytes each for small transactions, tens of megabytes in
     * all. At more than about 170 transactions a second, the oldest are forgotten before their ten minutes.
     */
    static final int MAX_TOKENS = 100_000;

    private final Clock clock;
    private final LinkedHashMap<String, Token<R>> tokens = new LinkedHashMap<>();

    /** A token's request digest, and once it has committed, its result and when it did. */
    private static final class Token<R> {
        final byte[] digest;
        final long startedAt;
        R result;
        long completedAt;

        Token(byte[] digest, long startedAt) {
            this.digest = digest;
            this.startedAt = startedAt;
        }
    }

    public IdempotencyTokens(Clock clock) {
        this.clock = clock;
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
     * Starts the request with {@code token}: null when it is new (the caller runs it, then calls {@link #complete} or
     * {@link #abandon}), else the result of the completed request it repeats.
     */
    public synchronized R begin(String token, byte[] digest) {
        long now = clock.millis();
        expire(now);
        Token<R> t = tokens.get(token);
        if (t == null) {
            tokens.put(token, new Token<>(digest, now));
            return null;
        }
        if (!Arrays.equals(t.digest, digest)) {
            // IdempotentParameterMismatchException's description in the API reference; no answer of DynamoDB's
            // with a message has been published.
            throw new ApiException(
                    ErrorCode.IDEMPOTENT_PARAMETER_MISMATCH,
                    "DynamoDB rejected the request because you retried a request with a different payload but with an"
                            + " idempotent token that was already used.");
        }
        if (t.result == null) {
            throw new ApiException(
                    ErrorCode.TRANSACTION_IN_PROGRESS, "Transaction from previous request is still in progress");
        }
        return t.result;
    }

    /** The request with {@code token} committed with {@code result}: its window starts now. */
    public synchronized void complete(String token, R result) {
        Token<R> t = tokens.remove(token);
        if (t != null) {
            t.result = result;
            t.completedAt = clock.millis();
            // Re-inserted at the tail: the map stays in order of completion, which is the order of expiry.
            tokens.put(token, t);
        }
    }

    /** The request with {@code token} failed: the token is free again. */
    public synchronized void abandon(String token) {
        tokens.remove(token);
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
