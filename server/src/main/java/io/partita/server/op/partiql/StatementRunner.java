package io.partita.server.op.partiql;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.expr.ConditionEvaluator;
import io.partita.protocol.expr.ExpressionCache;
import io.partita.protocol.expr.ExpressionResolver;
import io.partita.protocol.expr.ProjectionApplier;
import io.partita.protocol.expr.ast.Condition;
import io.partita.protocol.expr.ast.Path;
import io.partita.protocol.json.DynamoJson;
import io.partita.protocol.message.ExecuteStatementOutput;
import io.partita.protocol.message.GetItemOutput;
import io.partita.protocol.message.ReadPageOutput;
import io.partita.protocol.message.WriteItemOutput;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.partiql.Partiql;
import io.partita.server.op.item.DeleteItemHandler;
import io.partita.server.op.item.GetItemHandler;
import io.partita.server.op.item.ItemExpressions;
import io.partita.server.op.item.PutItemHandler;
import io.partita.server.op.item.UpdateItemHandler;
import io.partita.server.op.query.QueryHandler;
import io.partita.server.op.query.ScanHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.NonBlockingThread;
import io.partita.storage.StorageEngine;
import io.partita.storage.WouldBlock;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one planned PartiQL statement through the handler of the operation it became, so that it is checked, charged
 * and answered exactly as that operation is; then words the answer as ExecuteStatement's.
 */
final class StatementRunner {
    private static final Logger log = LoggerFactory.getLogger(StatementRunner.class);
    /** Statements already warned about, so that a loop of one scan logs it once. */
    private static final int MAX_WARNED = 1000;

    static final String DUPLICATE = "Duplicate primary key exists in table";

    private final Planner planner;
    private final GetItemHandler get;
    private final QueryHandler query;
    private final ScanHandler scan;
    private final PutItemHandler put;
    private final UpdateItemHandler update;
    private final DeleteItemHandler delete;
    private final PartiqlScans scans;
    private final ExpressionCache cache;
    private final Set<String> warned = ConcurrentHashMap.newKeySet();

    StatementRunner(StorageEngine storage, ItemExpressions expressions, ExpressionCache cache, PartiqlScans scans) {
        this.planner = new Planner(storage);
        this.get = new GetItemHandler(storage, expressions);
        this.query = new QueryHandler(storage, cache);
        this.scan = new ScanHandler(storage, cache);
        this.put = new PutItemHandler(storage, expressions);
        this.update = new UpdateItemHandler(storage, expressions);
        this.delete = new DeleteItemHandler(storage, expressions);
        this.scans = scans;
        this.cache = cache;
    }

    Planner planner() {
        return planner;
    }

    /**
     * A page's token: where the next page starts, and a digest of the statement and parameters it belongs to, so that
     * a token used with another statement is refused ("NextToken does not match request").
     */
    record Token(Map<String, AttributeValue> key, String statement) {}

    static String digest(String statement, List<AttributeValue> parameters) {
        try {
            java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-256");
            sha.update(statement.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            sha.update((byte) 0);
            if (parameters != null) {
                sha.update(DynamoJson.encode(parameters));
            }
            return Base64.getUrlEncoder().withoutPadding().encodeToString(java.util.Arrays.copyOf(sha.digest(), 12));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }

    static String token(Map<String, AttributeValue> lastEvaluatedKey, String digest) {
        return lastEvaluatedKey == null
                ? null
                : Base64.getUrlEncoder()
                        .withoutPadding()
                        .encodeToString(DynamoJson.encode(new Token(lastEvaluatedKey, digest)));
    }

    static Map<String, AttributeValue> startKey(String nextToken, String digest) {
        if (nextToken == null) {
            return null;
        }
        Token t;
        try {
            t = DynamoJson.decode(Base64.getUrlDecoder().decode(nextToken), Token.class);
        } catch (IllegalArgumentException | ApiException e) {
            throw ApiException.validation("Invalid NextToken");
        }
        if (t == null || t.key() == null || t.key().isEmpty() || t.statement() == null) {
            throw ApiException.validation("Invalid NextToken");
        }
        if (!t.statement().equals(digest)) {
            throw ApiException.validation("NextToken does not match request");
        }
        return t.key();
    }

    ExecuteStatementOutput run(
            RequestContext context,
            Partiql.Statement statement,
            String text,
            List<AttributeValue> parameters,
            Boolean consistentRead,
            Long limit,
            String nextToken,
            String returnConsumedCapacity,
            String onFailure) {
        if (statement instanceof Partiql.Select s) {
            String digest = digest(text, parameters);
            Planner.Read plan =
                    planner.select(s, consistentRead, limit, startKey(nextToken, digest), returnConsumedCapacity);
            if (plan.get() != null) {
                GetItemOutput out = get.handle(context, plan.get());
                return new ExecuteStatementOutput(
                        out.item() == null ? List.of() : List.of(out.item()), null, out.consumedCapacity(), null);
            }
            if (NonBlockingThread.current()) {
                // Up to a megabyte read: not on an event loop. Nothing has been read or charged yet.
                throw WouldBlock.INSTANCE;
            }
            ReadPageOutput out;
            if (plan.query() != null) {
                out = query.handle(context, plan.query());
            } else {
                warnScan(s.table(), text);
                out = scan.handle(context, plan.scan());
            }
            List<Map<String, AttributeValue>> items = plan.after() == null ? out.items() : after(plan.after(), out);
            return new ExecuteStatementOutput(
                    items, token(out.lastEvaluatedKey(), digest), out.consumedCapacity(), out.lastEvaluatedKey());
        }
        if (statement instanceof Partiql.Insert s) {
            Planner.Write plan = planner.insert(s, returnConsumedCapacity, null);
            try {
                WriteItemOutput out = put.handle(context, plan.put());
                return new ExecuteStatementOutput(List.of(), null, out.consumedCapacity(), null);
            } catch (ApiException e) {
                if (e.code() == ErrorCode.CONDITIONAL_CHECK_FAILED) {
                    throw new ApiException(ErrorCode.DUPLICATE_ITEM, DUPLICATE);
                }
                throw e;
            }
        }
        if (statement instanceof Partiql.Update s) {
            WriteItemOutput out = update.handle(
                    context,
                    planner.update(s, returnConsumedCapacity, onFailure).update());
            return written(out);
        }
        if (statement instanceof Partiql.Delete s) {
            WriteItemOutput out = delete.handle(
                    context,
                    planner.delete(s, returnConsumedCapacity, onFailure).delete());
            return written(out);
        }
        throw ApiException.validation("EXISTS can only be used in ExecuteTransaction write requests.");
    }

    /** The items of a Query that pass the conditions it could not take as its filter, then projected. */
    private List<Map<String, AttributeValue>> after(Planner.PostFilter f, ReadPageOutput out) {
        ExpressionResolver resolver = new ExpressionResolver(f.names(), f.values());
        Condition condition = resolver.resolve(cache.condition(f.condition(), "FilterExpression"), "FilterExpression");
        List<Path> projection =
                f.projection() == null ? null : resolver.resolveProjection(cache.projection(f.projection()));
        List<Map<String, AttributeValue>> items = new java.util.ArrayList<>();
        for (Map<String, AttributeValue> item : out.items()) {
            if (ConditionEvaluator.test(condition, item)) {
                items.add(projection == null ? item : ProjectionApplier.project(item, projection));
            }
        }
        return items;
    }

    private static ExecuteStatementOutput written(WriteItemOutput out) {
        return new ExecuteStatementOutput(
                out.attributes() == null ? List.of() : List.of(out.attributes()), null, out.consumedCapacity(), null);
    }

    /**
     * "A SELECT without the key is still a scan": counted per table, and logged once per statement (the first
     * thousand distinct ones), so that a user can see which of their statements read the whole table.
     */
    private void warnScan(String table, String statement) {
        scans.count(table);
        if (warned.size() < MAX_WARNED && warned.add(statement)) {
            log.warn(
                    "PartiQL SELECT on table {} is a full table scan (its WHERE does not bind the partition key by"
                            + " equality): {}",
                    table,
                    statement);
        }
    }
}
