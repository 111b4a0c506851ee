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
import io.partita.protocol.message.ConsumedCapacity;
import io.partita.protocol.message.ExecuteStatementOutput;
import io.partita.protocol.message.GetItemOutput;
import io.partita.protocol.message.QueryInput;
import io.partita.protocol.message.ReadPageOutput;
import io.partita.protocol.message.ScanInput;
import io.partita.protocol.message.WriteItemOutput;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.ItemSize;
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
import java.util.ArrayList;
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
    private final ScanHandler scanRange;
    private final QueryHandler queryRange;
    private final PutItemHandler put;
    private final UpdateItemHandler update;
    private final DeleteItemHandler delete;
    private final PartiqlScans scans;
    private final ExpressionCache cache;
    private final StorageEngine storage;
    private final Set<String> warned = ConcurrentHashMap.newKeySet();

    StatementRunner(StorageEngine storage, ItemExpressions expressions, ExpressionCache cache, PartiqlScans scans) {
        this.storage = storage;
        this.planner = new Planner(storage);
        this.get = new GetItemHandler(storage, expressions);
        this.query = QueryHandler.ofStatements(storage, cache);
        this.scan = new ScanHandler(storage, cache);
        this.scanRange = ScanHandler.ofRange(storage, cache);
        this.queryRange = QueryHandler.ofRange(storage, cache);
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
    record Token(Map<String, AttributeValue> key, String statement, Integer partition) {}

    /**
     * A SELECT of several partition key values reads at most this many of them per page ("ql-operators": IN's
     * "results are returned in pages of up to 10 items"; more values need the NextToken), and stops early when its
     * page passes a megabyte, as one Query does.
     */
    static final int VALUES_PER_PAGE = 10;

    private static final long PAGE_BYTES = 1024 * 1024;

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
        return lastEvaluatedKey == null ? null : token(lastEvaluatedKey, null, digest);
    }

    /** Where the next page starts: the {@code partition}-th value's Query, after {@code key} (null: its start). */
    static String token(Map<String, AttributeValue> key, Integer partition, String digest) {
        return Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString(DynamoJson.encode(new Token(key, digest, partition)));
    }

    /** The key a {@code NextToken} of a SELECT goes on after, or null for a token that names none or is not one. */
    static Map<String, AttributeValue> keyOf(String nextToken) {
        Token t = decoded(nextToken);
        return t == null || t.key() == null || t.key().isEmpty() ? null : t.key();
    }

    /** The value index a {@code NextToken} of a SELECT of several values goes on with, or 0 for none. */
    static int valueOf(String nextToken) {
        Token t = decoded(nextToken);
        return t == null || t.partition() == null ? 0 : Math.max(0, t.partition());
    }

    /** {@code nextToken} decoded, unchecked; null for none, or for one that does not decode. */
    private static Token decoded(String nextToken) {
        if (nextToken == null) {
            return null;
        }
        try {
            return DynamoJson.decode(Base64.getUrlDecoder().decode(nextToken), Token.class);
        } catch (IllegalArgumentException | ApiException e) {
            return null;
        }
    }

    static Token resume(String nextToken, String digest) {
        if (nextToken == null) {
            return null;
        }
        Token t;
        try {
            t = DynamoJson.decode(Base64.getUrlDecoder().decode(nextToken), Token.class);
        } catch (IllegalArgumentException | ApiException e) {
            throw ApiException.validation("Invalid NextToken");
        }
        boolean keyed = t != null && t.key() != null && !t.key().isEmpty();
        if (t == null || t.statement() == null || (!keyed && t.partition() == null)) {
            throw ApiException.validation("Invalid NextToken");
        }
        if (!t.statement().equals(digest)) {
            throw ApiException.validation("NextToken does not match request");
        }
        return t;
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
            Token resume = resume(nextToken, digest);
            Planner.Read plan = planner.select(
                    s, consistentRead, limit, resume == null ? null : resume.key(), returnConsumedCapacity);
            if (plan.get() != null) {
                GetItemOutput out = get.handle(context, plan.get());
                return new ExecuteStatementOutput(
                        out.item() == null ? List.of() : List.of(out.item()), null, out.consumedCapacity(), null);
            }
            if (NonBlockingThread.current()) {
                // Up to a megabyte read: not on an event loop. Nothing has been read or charged yet.
                throw WouldBlock.INSTANCE;
            }
            if (plan.queries() != null) {
                return perPartition(context, plan, resume, limit, digest);
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

    /**
     * Partita's own {@code Partita.SelectRange}: one group's page of a SELECT that reads every hash range of a table
     * whose partitions are Raft groups of their own ({@code --cluster-partition-groups}, docs/CLUSTER.md), which the
     * node the client reached walks group by group. The statement's Scan of this group's items ({@link
     * ScanHandler#ofRange}) reads at most {@code pageBytes}; when it reaches their end, the answer names the last item
     * it scanned and the token that goes on after it, where the walk goes on with the next group. A SELECT of several
     * partition key values (an {@code IN} list or an {@code OR}) is a {@link #valueShare} instead; one of one key is
     * refused. The scan is counted and logged ({@link #warnScan}) by the first group of each page the client asked
     * for, when {@code counted}.
     */
    ExecuteStatementOutput selectRange(
            RequestContext context,
            Partiql.Statement statement,
            String text,
            List<AttributeValue> parameters,
            Boolean consistentRead,
            Long limit,
            String nextToken,
            String returnConsumedCapacity,
            Long pageBytes,
            boolean counted,
            Integer value,
            String hashRange,
            boolean mergeIndex) {
        if (!(statement instanceof Partiql.Select s)) {
            throw ApiException.validation("Partita.SelectRange runs a SELECT only");
        }
        String digest = digest(text, parameters);
        Token resume = resume(nextToken, digest);
        Planner.Read plan =
                planner.select(s, consistentRead, limit, resume == null ? null : resume.key(), returnConsumedCapacity);
        QueryInput keyed = plan.queries() != null ? plan.queries().get(0) : plan.query();
        if (keyed != null && readsGlobalIndex(context, keyed)) {
            if (hashRange == null) {
                throw ApiException.validation("Partita.SelectRange reads global secondary index " + keyed.indexName()
                        + " of table " + s.table() + " over a hash range only");
            }
            boolean forward = !Boolean.FALSE.equals(keyed.scanIndexForward());
            if (plan.queries() == null) {
                return indexShare(
                        plan,
                        forward,
                        digest,
                        mergeIndex,
                        null,
                        () -> queryRange.handle(context, inRange(keyed, hashRange)));
            }
            // Several values of the index's key (IN, OR): each value's Query is merged over every group in turn, from
            // the value the token names (its key the start of that value's Query alone).
            List<QueryInput> queries = plan.queries();
            if (!mergeIndex) {
                return indexShare(plan, forward, digest, false, queries.size(), null);
            }
            int from = resume == null || resume.partition() == null ? 0 : resume.partition();
            if (value == null || from < 0 || from >= queries.size() || value < from || value >= queries.size()) {
                throw ApiException.validation("Invalid NextToken");
            }
            QueryInput q = page(
                    queries.get(value),
                    resume != null && value == from ? resume.key() : null,
                    limit,
                    limit == null ? 0 : limit);
            return indexShare(
                    plan, forward, digest, true, null, () -> queryRange.handle(context, inRange(q, hashRange)));
        }
        if (plan.scan() != null
                && hashRange != null
                && readsGlobalIndex(
                        context, plan.scan().tableName(), plan.scan().indexName())) {
            // A scan of a global secondary index: its rows are in every group, merged in the index's order. Counted
            // once a page, by the walk's first group, which the client's page reaches first.
            if (counted && !mergeIndex) {
                if (NonBlockingThread.current()) {
                    throw WouldBlock.INSTANCE;
                }
                warnScan(s.table(), text);
            }
            ScanInput in = plan.scan();
            return indexShare(
                    plan,
                    true,
                    digest,
                    mergeIndex,
                    null,
                    () -> scanRange.handle(context, inRange(in, null, hashRange)));
        }
        if (plan.queries() != null) {
            return valueShare(context, plan, resume, limit, digest, value);
        }
        if (plan.scan() == null) {
            throw notOneRange(s.table());
        }
        if (NonBlockingThread.current()) {
            throw WouldBlock.INSTANCE;
        }
        if (counted) {
            warnScan(s.table(), text);
        }
        ScanInput in = plan.scan();
        ReadPageOutput out = scanRange.handle(context, inRange(in, pageBytes, hashRange));
        List<Map<String, AttributeValue>> items = plan.after() == null ? out.items() : after(plan.after(), out);
        return new ExecuteStatementOutput(
                items,
                token(out.lastEvaluatedKey(), digest),
                out.consumedCapacity(),
                out.lastEvaluatedKey(),
                out.partitaLastScannedKey(),
                token(out.partitaLastScannedKey(), digest),
                out.partitaScannedBytes(),
                out.scannedCount() == null ? null : out.scannedCount().longValue(),
                null);
    }

    /**
     * One group's share of a SELECT of several partition key values ({@link #perPartition}'s Queries) that the node
     * the client reached runs over a table's groups: for the first share of a page ({@code value} null), the hash of
     * each value, in the order of its Query, and nothing read; else the Query of value {@code value} alone, from the
     * token's key when the token is of that value, with the share's {@code Limit}, its answer naming the token of the
     * next value ({@code partitaLastScannedToken}) when it reads the value to its end.
     */
    private ExecuteStatementOutput valueShare(
            RequestContext context, Planner.Read plan, Token resume, Long limit, String digest, Integer value) {
        List<QueryInput> queries = plan.queries();
        int from = resume == null || resume.partition() == null ? 0 : resume.partition();
        if (from < 0 || from >= queries.size()) {
            throw ApiException.validation("Invalid NextToken");
        }
        if (value == null) {
            // A value of no key's type (a boolean, a null, a list) hashes as 0, into the first range: its Query there
            // refuses it as a single node's does, when the page reaches it.
            List<Long> hashes = plan.partitionValues().stream()
                    .map(v -> v instanceof AttributeValue.S
                                    || v instanceof AttributeValue.N
                                    || v instanceof AttributeValue.B
                            ? io.partita.storage.key.ItemKeyEncoder.partitionHash(v)
                            : 0L)
                    .toList();
            return new ExecuteStatementOutput(List.of(), null, null, null, null, null, null, null, hashes);
        }
        if (value < from || value >= queries.size()) {
            throw ApiException.validation("Partita.SelectRange: no value " + value + " of the statement to read");
        }
        if (NonBlockingThread.current()) {
            throw WouldBlock.INSTANCE; // a Query of up to a megabyte; nothing read or charged yet
        }
        Map<String, AttributeValue> startKey = resume != null && value == from ? resume.key() : null;
        ReadPageOutput out =
                query.handle(context, page(queries.get(value), startKey, limit, limit == null ? 0 : limit));
        List<Map<String, AttributeValue>> items = plan.after() == null ? out.items() : after(plan.after(), out);
        long bytes = 0;
        for (Map<String, AttributeValue> item : out.items()) {
            bytes += ItemSize.of(item);
        }
        long scanned = out.scannedCount() == null ? 0 : out.scannedCount();
        if (out.lastEvaluatedKey() != null && !plan.oneRowEach()) {
            return new ExecuteStatementOutput(
                    items,
                    token(out.lastEvaluatedKey(), value, digest),
                    out.consumedCapacity(),
                    out.lastEvaluatedKey(),
                    null,
                    null,
                    bytes,
                    scanned,
                    null);
        }
        return new ExecuteStatementOutput(
                items,
                null,
                out.consumedCapacity(),
                null,
                null,
                value + 1 < queries.size() ? token(null, value + 1, digest) : null,
                bytes,
                scanned,
                null);
    }

    /**
     * A group's share of a SELECT that reads a global secondary index by its key ({@code keyed}), whose rows are in
     * every group of its table: unless {@code mergeIndex}, the first page of a walk, answered with the Query's
     * direction alone and nothing read (the walking node then asks every group at once); else the Query of the rows of
     * the items of {@code hashRange} ({@link QueryHandler#ofRange}), each row named, the statement's conditions on key
     * attributes ({@link Planner.PostFilter}) applied to what it matched, for the walking node to merge in the index's
     * order.
     */
    private ExecuteStatementOutput indexShare(
            Planner.Read plan,
            boolean forward,
            String digest,
            boolean mergeIndex,
            Integer values,
            java.util.function.Supplier<ReadPageOutput> reader) {
        if (!mergeIndex) {
            // Of several values, their number alone: the walking node reads each value in every group in turn.
            List<Long> each = values == null ? null : java.util.Collections.nCopies(values, 0L);
            return new ExecuteStatementOutput(List.of(), null, null, null, null, null, null, null, each, null, forward);
        }
        if (NonBlockingThread.current()) {
            throw WouldBlock.INSTANCE;
        }
        ReadPageOutput out = reader.get();
        if (out.partitaEntries() == null) {
            // A store that records no range (a table cut before 2026-12-07) reads every row it has: not merged.
            throw ApiException.validation("Partita's cluster cannot read a global secondary index of a table cut by"
                    + " hash ranges before 2026-12-07 (its groups' stores record no range)");
        }
        List<Map<String, AttributeValue>> items = out.items();
        List<ReadPageOutput.Entry> entries = out.partitaEntries();
        if (plan.after() != null && entries != null) {
            Planner.PostFilter f = plan.after();
            ExpressionResolver resolver = new ExpressionResolver(f.names(), f.values());
            Condition condition =
                    resolver.resolve(cache.condition(f.condition(), "FilterExpression"), "FilterExpression");
            List<Path> projection =
                    f.projection() == null ? null : resolver.resolveProjection(cache.projection(f.projection()));
            List<Map<String, AttributeValue>> kept = new java.util.ArrayList<>();
            List<ReadPageOutput.Entry> named = new java.util.ArrayList<>(entries.size());
            java.util.Iterator<Map<String, AttributeValue>> read = items.iterator();
            for (ReadPageOutput.Entry e : entries) {
                // The Query read whole items, for the conditions to see what they test.
                Map<String, AttributeValue> item = e.matched() && read.hasNext() ? read.next() : null;
                boolean matched = item != null && ConditionEvaluator.test(condition, item);
                if (matched) {
                    kept.add(projection == null ? item : ProjectionApplier.project(item, projection));
                }
                named.add(new ReadPageOutput.Entry(e.position(), e.key(), e.bytes(), matched));
            }
            items = kept;
            entries = named;
        }
        return new ExecuteStatementOutput(
                items,
                token(out.lastEvaluatedKey(), digest),
                out.consumedCapacity(),
                out.lastEvaluatedKey(),
                null,
                null,
                null,
                null,
                null,
                entries,
                forward);
    }

    /** Query {@code q} of the rows of the items of {@code hashRange} alone, as a group's share of a merged read. */
    private static QueryInput inRange(QueryInput q, String hashRange) {
        return new QueryInput(
                q.tableName(),
                q.indexName(),
                q.select(),
                q.attributesToGet(),
                q.limit(),
                q.consistentRead(),
                q.keyConditions(),
                q.queryFilter(),
                q.conditionalOperator(),
                q.scanIndexForward(),
                q.exclusiveStartKey(),
                q.returnConsumedCapacity(),
                q.projectionExpression(),
                q.filterExpression(),
                q.keyConditionExpression(),
                q.expressionAttributeNames(),
                q.expressionAttributeValues(),
                hashRange);
    }

    /** Scan {@code in} as a group's page of a walk: {@code pageBytes} to read at most, {@code hashRange} expected. */
    private static ScanInput inRange(ScanInput in, Long pageBytes, String hashRange) {
        return new ScanInput(
                in.tableName(),
                in.indexName(),
                in.attributesToGet(),
                in.limit(),
                in.select(),
                in.scanFilter(),
                in.conditionalOperator(),
                in.exclusiveStartKey(),
                in.returnConsumedCapacity(),
                in.totalSegments(),
                in.segment(),
                in.projectionExpression(),
                in.filterExpression(),
                in.expressionAttributeNames(),
                in.expressionAttributeValues(),
                in.consistentRead(),
                pageBytes,
                hashRange);
    }

    /** Whether {@code query} reads a global secondary index. */
    private boolean readsGlobalIndex(RequestContext context, QueryInput query) {
        return readsGlobalIndex(context, query.tableName(), query.indexName());
    }

    /** Whether index {@code indexName} (null: none) of table {@code tableName} is a global secondary index. */
    private boolean readsGlobalIndex(RequestContext context, String tableName, String indexName) {
        if (indexName == null) {
            return false;
        }
        var table = storage.tables().find(io.partita.server.op.TableNames.resolve(context, tableName));
        var index = table == null ? null : table.indexes().find(indexName);
        return index != null && index.global();
    }

    /**
     * The refusal of a SELECT on table {@code table}, whose partitions are Raft groups of their own, that becomes
     * neither a Scan nor Queries of several partition key values: one that a node sends a group as a walk's page,
     * which goes by its key instead.
     */
    static ApiException notOneRange(String table) {
        return ApiException.validation("Partita's cluster runs a SELECT that binds one partition key value on table "
                + table + " in that value's group, not as a walk over its groups (--cluster-partition-groups,"
                + " docs/CLUSTER.md)");
    }

    /**
     * A SELECT of several partition key values: their Queries in turn, from where {@code resume} left off, while the
     * page has room (the statement's {@code Limit} of items read, {@link #VALUES_PER_PAGE} values, a megabyte).
     */
    private ExecuteStatementOutput perPartition(
            RequestContext context, Planner.Read plan, Token resume, Long limit, String digest) {
        List<QueryInput> queries = plan.queries();
        int from = resume == null || resume.partition() == null ? 0 : resume.partition();
        if (from < 0 || from >= queries.size()) {
            throw ApiException.validation("Invalid NextToken");
        }
        Map<String, AttributeValue> startKey = resume == null ? null : resume.key();
        List<Map<String, AttributeValue>> items = new ArrayList<>();
        ConsumedCapacity consumed = null;
        long left = limit == null ? Long.MAX_VALUE : limit;
        long bytes = 0;
        int end = Math.min(queries.size(), from + VALUES_PER_PAGE);
        for (int i = from; i < end; i++) {
            ReadPageOutput out = query.handle(context, page(queries.get(i), i == from ? startKey : null, limit, left));
            List<Map<String, AttributeValue>> found = plan.after() == null ? out.items() : after(plan.after(), out);
            items.addAll(found);
            consumed = ConsumedCapacity.sum(consumed, out.consumedCapacity());
            if (out.lastEvaluatedKey() != null && !plan.oneRowEach()) {
                return new ExecuteStatementOutput(
                        items, token(out.lastEvaluatedKey(), i, digest), consumed, out.lastEvaluatedKey());
            }
            left -= out.scannedCount();
            for (Map<String, AttributeValue> item : out.items()) {
                bytes += ItemSize.of(item);
            }
            if ((left <= 0 || bytes >= PAGE_BYTES) && i + 1 < queries.size()) {
                return new ExecuteStatementOutput(items, token(null, i + 1, digest), consumed, null);
            }
        }
        return new ExecuteStatementOutput(
                items, end < queries.size() ? token(null, end, digest) : null, consumed, null);
    }

    /** One partition's Query of a page: from {@code startKey}, reading no more than the page has left. */
    private static QueryInput page(QueryInput q, Map<String, AttributeValue> startKey, Long limit, long left) {
        return new QueryInput(
                q.tableName(),
                q.indexName(),
                q.select(),
                q.attributesToGet(),
                limit == null ? null : Long.valueOf(left),
                q.consistentRead(),
                q.keyConditions(),
                q.queryFilter(),
                q.conditionalOperator(),
                q.scanIndexForward(),
                startKey,
                q.returnConsumedCapacity(),
                q.projectionExpression(),
                q.filterExpression(),
                q.keyConditionExpression(),
                q.expressionAttributeNames(),
                q.expressionAttributeValues());
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
