package io.partita.server.fault;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.message.BatchGetItemInput;
import io.partita.protocol.message.BatchGetItemOutput;
import io.partita.protocol.message.BatchWriteItemInput;
import io.partita.protocol.message.BatchWriteItemOutput;
import io.partita.protocol.message.ExecuteTransactionInput;
import io.partita.protocol.message.KeysAndAttributes;
import io.partita.protocol.message.TransactGetItemsInput;
import io.partita.protocol.message.TransactWriteItemsInput;
import io.partita.protocol.message.WriteRequest;
import io.partita.protocol.model.AttributeValue;
import io.partita.server.op.txn.TransactionRequests;
import io.partita.server.route.RequestContext;
import io.partita.storage.NonBlockingThread;
import io.partita.storage.WouldBlock;
import io.partita.storage.write.Transactions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Faults injected on purpose, so that an application's retry and back-off code can be tested deterministically:
 * throttling, 500s and 503s, unprocessed batch items, transaction conflicts and added latency, per table and
 * operation, each rule with a rate, an optional count and its own seeded generator. Rules come from {@code --fault} and
 * the admin API ({@code /admin/faults}); every injected fault is counted ({@code /metrics}) and logged. An error fault
 * is answered before the operation runs, so it changes nothing; with no rule, a request pays one volatile read.
 */
public final class FaultInjector {
    private static final Logger log = LoggerFactory.getLogger(FaultInjector.class);

    private final CopyOnWriteArrayList<FaultRule> rules = new CopyOnWriteArrayList<>();
    private final AtomicInteger nextId = new AtomicInteger(1);
    private volatile boolean active;
    private volatile long seed;

    public FaultInjector(long seed) {
        this.seed = seed;
    }

    /** True when some rule may fire. */
    public boolean active() {
        return active;
    }

    /** The seed new rules without their own derive theirs from. */
    public long seed() {
        return seed;
    }

    public FaultRule add(FaultRule.Spec spec) {
        FaultRule r = new FaultRule(nextId.getAndIncrement(), spec, seed);
        rules.add(r);
        active = true;
        log.info("fault rule {}: {} (rate {}, {})", r.id(), r.describe(), spec.rate(), countText(spec.count()));
        return r;
    }

    /** Removes rule {@code id}; false if there is none. */
    public boolean remove(int id) {
        boolean removed = rules.removeIf(r -> r.id() == id);
        active = !rules.isEmpty();
        return removed;
    }

    /** Removes every rule; the next is rule 1 again, and new rules derive their generators from {@code newSeed}. */
    public void clear(long newSeed) {
        rules.clear();
        active = false;
        seed = newSeed;
        nextId.set(1);
    }

    public List<FaultRule> rules() {
        return List.copyOf(rules);
    }

    /**
     * Runs {@code operation} through {@code handler} with the faults that apply to it. On an event loop, a request
     * that a latency rule matches is handed to a worker first ({@link WouldBlock}), unchanged, since the delay is a
     * sleep.
     */
    public Object run(RequestContext context, String operation, Object input, UnaryOperator<Object> handler) {
        List<String> tables = FaultTargets.tables(input);
        List<FaultRule> matching = new ArrayList<>(2);
        for (FaultRule r : rules) {
            if (r.live() && r.matches(operation, tables)) {
                matching.add(r);
            }
        }
        if (matching.isEmpty()) {
            return handler.apply(input);
        }
        if (NonBlockingThread.current()) {
            for (FaultRule r : matching) {
                if (r.spec().kind() == FaultRule.Kind.LATENCY) {
                    throw WouldBlock.INSTANCE;
                }
            }
        }
        Object request = input;
        List<Map.Entry<String, Object>> withheld = null;
        for (FaultRule r : matching) {
            FaultRule.Kind kind = r.spec().kind();
            if (kind == FaultRule.Kind.UNPROCESSED) {
                if (request instanceof BatchWriteItemInput || request instanceof BatchGetItemInput) {
                    Unprocessed u = withhold(context, operation, r, request);
                    request = u.request();
                    withheld = u.items();
                }
                continue;
            }
            if (!r.fires()) {
                continue;
            }
            marked(context, operation, tables, r);
            switch (kind) {
                case LATENCY -> sleep(r.spec().latencyMillis());
                case THROTTLE ->
                    throw new ApiException(
                            ErrorCode.PROVISIONED_THROUGHPUT_EXCEEDED,
                            "The level of configured provisioned throughput for the table was exceeded. Consider"
                                    + " increasing your provisioning level with the UpdateTable API.");
                case THROTTLING ->
                    throw new ApiException(ErrorCode.THROTTLING, "Rate of requests exceeds the allowed throughput.");
                case INTERNAL -> throw new ApiException(ErrorCode.INTERNAL_SERVER_ERROR, "Internal server error");
                case UNAVAILABLE ->
                    throw new ApiException(
                            ErrorCode.SERVICE_UNAVAILABLE, "Service unavailable. Please retry your request.");
                case CONFLICT -> throw conflict(request);
                default -> throw new IllegalStateException(kind.toString());
            }
        }
        if (withheld == null) {
            return handler.apply(request);
        }
        if (isEmpty(request)) {
            // Nothing left to process: DynamoDB answers a batch it could process none of with this, not an empty page.
            throw new ApiException(
                    ErrorCode.PROVISIONED_THROUGHPUT_EXCEEDED,
                    "The level of configured provisioned throughput for the table was exceeded. Consider increasing"
                            + " your provisioning level with the UpdateTable API.");
        }
        return merge(handler.apply(request), withheld);
    }

    private record Unprocessed(Object request, List<Map.Entry<String, Object>> items) {}

    /** The batch without the items {@code r} withholds, and those items (table, write request or key). */
    private static Unprocessed withhold(RequestContext context, String operation, FaultRule r, Object request) {
        List<Map.Entry<String, Object>> out = new ArrayList<>();
        if (request instanceof BatchWriteItemInput b) {
            Map<String, List<WriteRequest>> kept = new LinkedHashMap<>();
            b.requestItems().forEach((table, writes) -> {
                List<WriteRequest> left = new ArrayList<>();
                for (WriteRequest w : writes == null ? List.<WriteRequest>of() : writes) {
                    if (applies(r, table) && r.fires()) {
                        out.add(Map.entry(table, w));
                    } else {
                        left.add(w);
                    }
                }
                if (!left.isEmpty()) {
                    kept.put(table, left);
                }
            });
            request = new BatchWriteItemInput(kept, b.returnConsumedCapacity(), b.returnItemCollectionMetrics());
        } else {
            BatchGetItemInput b = (BatchGetItemInput) request;
            Map<String, KeysAndAttributes> kept = new LinkedHashMap<>();
            b.requestItems().forEach((table, ka) -> {
                if (ka == null || ka.keys() == null) {
                    kept.put(table, ka);
                    return;
                }
                List<Map<String, AttributeValue>> left = new ArrayList<>();
                for (Map<String, AttributeValue> key : ka.keys()) {
                    if (applies(r, table) && r.fires()) {
                        out.add(Map.entry(
                                table,
                                new KeysAndAttributes(
                                        new ArrayList<>(List.of(key)),
                                        ka.attributesToGet(),
                                        ka.consistentRead(),
                                        ka.projectionExpression(),
                                        ka.expressionAttributeNames())));
                    } else {
                        left.add(key);
                    }
                }
                if (!left.isEmpty()) {
                    kept.put(table, withKeys(ka, left));
                }
            });
            request = new BatchGetItemInput(kept, b.returnConsumedCapacity());
        }
        if (!out.isEmpty()) {
            log.info(
                    "{} injected fault (rule {}): {} of {} left unprocessed",
                    context.requestId(),
                    r.id(),
                    out.size() == 1 ? "1 item" : out.size() + " items",
                    operation);
        }
        return new Unprocessed(request, out);
    }

    private static boolean applies(FaultRule r, String table) {
        return r.spec().table() == null || r.spec().table().equals(io.partita.server.op.TableNames.nameOf(table));
    }

    private static KeysAndAttributes withKeys(KeysAndAttributes ka, List<Map<String, AttributeValue>> keys) {
        return new KeysAndAttributes(
                keys,
                ka.attributesToGet(),
                ka.consistentRead(),
                ka.projectionExpression(),
                ka.expressionAttributeNames());
    }

    private static boolean isEmpty(Object request) {
        return request instanceof BatchWriteItemInput b
                ? b.requestItems().isEmpty()
                : ((BatchGetItemInput) request).requestItems().isEmpty();
    }

    /** The handler's answer with the withheld items added to its own unprocessed ones. */
    private static Object merge(Object answer, List<Map.Entry<String, Object>> withheld) {
        if (withheld.isEmpty()) {
            return answer;
        }
        if (answer instanceof BatchWriteItemOutput o) {
            Map<String, List<WriteRequest>> unprocessed = new LinkedHashMap<>();
            if (o.unprocessedItems() != null) {
                o.unprocessedItems().forEach((t, w) -> unprocessed.put(t, new ArrayList<>(w)));
            }
            for (Map.Entry<String, Object> e : withheld) {
                unprocessed.computeIfAbsent(e.getKey(), t -> new ArrayList<>()).add((WriteRequest) e.getValue());
            }
            return new BatchWriteItemOutput(unprocessed, o.consumedCapacity(), o.itemCollectionMetrics());
        }
        BatchGetItemOutput o = (BatchGetItemOutput) answer;
        Map<String, KeysAndAttributes> unprocessed = new LinkedHashMap<>();
        if (o.unprocessedKeys() != null) {
            unprocessed.putAll(o.unprocessedKeys());
        }
        for (Map.Entry<String, Object> e : withheld) {
            KeysAndAttributes one = (KeysAndAttributes) e.getValue();
            unprocessed.merge(e.getKey(), one, (a, b) -> {
                List<Map<String, AttributeValue>> keys = new ArrayList<>(a.keys());
                keys.addAll(b.keys());
                return withKeys(a, keys);
            });
        }
        return new BatchGetItemOutput(o.responses(), unprocessed, o.consumedCapacity());
    }

    /** A transaction's cancellation (its first action conflicting), or a single-item write's conflict. */
    private static ApiException conflict(Object request) {
        int actions = request instanceof TransactWriteItemsInput t && t.transactItems() != null
                ? t.transactItems().size()
                : request instanceof TransactGetItemsInput g && g.transactItems() != null
                        ? g.transactItems().size()
                        : request instanceof ExecuteTransactionInput x && x.transactStatements() != null
                                ? x.transactStatements().size()
                                : 0;
        if (actions == 0) {
            return new ApiException(ErrorCode.TRANSACTION_CONFLICT, Transactions.CONFLICT_MESSAGE);
        }
        List<Transactions.Reason> reasons = new ArrayList<>(actions);
        reasons.add(new Transactions.Reason(Transactions.TRANSACTION_CONFLICT, Transactions.CONFLICT_MESSAGE, null));
        for (int i = 1; i < actions; i++) {
            reasons.add(new Transactions.Reason(Transactions.NONE, null, null));
        }
        return TransactionRequests.cancelled(reasons);
    }

    private static void marked(RequestContext context, String operation, List<String> tables, FaultRule r) {
        log.info(
                "{} injected fault (rule {}): {} into {} on {}",
                context.requestId(),
                r.id(),
                r.spec().kind().wire(),
                operation,
                tables.isEmpty() ? "no table" : String.join(", ", tables));
    }

    private static void sleep(long millis) {
        try {
            TimeUnit.MILLISECONDS.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String countText(long count) {
        return count < 0 ? "no limit" : count + (count == 1 ? " time" : " times");
    }
}
