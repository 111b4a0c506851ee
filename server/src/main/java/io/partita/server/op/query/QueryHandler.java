package io.partita.server.op.query;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.expr.ExpressionCache;
import io.partita.protocol.expr.ExpressionResolver;
import io.partita.protocol.expr.KeyConditionPlanner;
import io.partita.protocol.expr.Values;
import io.partita.protocol.expr.ast.Condition;
import io.partita.protocol.expr.ast.Path;
import io.partita.protocol.expr.legacy.LegacyConditions;
import io.partita.protocol.message.QueryInput;
import io.partita.protocol.message.ReadPageOutput;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.op.TableNames;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.key.IndexKeyEncoder;
import io.partita.storage.key.KeyRanges;
import io.partita.storage.table.TableCatalog.Table;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Query: one partition, in sort-key order (or reverse), paged by Limit and 1 MB, then filtered and projected. */
public final class QueryHandler implements OperationHandler<QueryInput, ReadPageOutput> {
    private final StorageEngine storage;
    private final ExpressionCache cache;
    /** Whether a page of a global secondary index names each row it read ({@link #ofRange}). */
    private final boolean ranged;
    /** Whether it runs a PartiQL SELECT's Query ({@link #ofStatements}). */
    private final boolean statements;

    public QueryHandler(StorageEngine storage, ExpressionCache cache) {
        this(storage, cache, false, false);
    }

    private QueryHandler(StorageEngine storage, ExpressionCache cache, boolean ranged, boolean statements) {
        this.storage = storage;
        this.cache = cache;
        this.ranged = ranged;
        this.statements = statements;
    }

    /**
     * The Queries of PartiQL SELECTs: one of a global secondary index of a table cut by hash ranges that binds no one
     * value of the table's partition key is refused ({@link ApiException#validation}): no one group holds its rows, and
     * a statement is not merged over the groups (a Query of the index is).
     */
    public static QueryHandler ofStatements(StorageEngine storage, ExpressionCache cache) {
        return new QueryHandler(storage, cache, false, true);
    }

    /**
     * Partita's own {@code Partita.QueryIndexRange}: a Query of a global secondary index of a table cut by hash ranges
     * ({@code --cluster-partition-groups}, docs/CLUSTER.md) in one of its groups, which reads the rows of the items of
     * the range its store holds alone and names each row it read ({@link ReadPageOutput#partitaEntries}), for the node
     * that merges every group's page in the index's order. Any other Query is answered as usual.
     */
    public static QueryHandler ofRange(StorageEngine storage, ExpressionCache cache) {
        return new QueryHandler(storage, cache, true, false);
    }

    @Override
    public Class<QueryInput> inputType() {
        return QueryInput.class;
    }

    @Override
    public ReadPageOutput handle(RequestContext context, QueryInput in) {
        ConstraintSet c = new ConstraintSet();
        TableNames.check(c, in.tableName());
        ReadRequests.constrain(
                c,
                in.select(),
                in.limit(),
                in.conditionalOperator(),
                in.returnConsumedCapacity(),
                in.attributesToGet(),
                in.indexName());
        c.check();
        checkMixing(in);
        ReadRequests.checkSelect(in.select(), in.indexName(), in.projectionExpression(), in.attributesToGet());
        // An empty KeyConditions map names no key either.
        if (in.keyConditionExpression() == null
                && (in.keyConditions() == null || in.keyConditions().isEmpty())) {
            throw ApiException.validation(
                    "Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.");
        }
        boolean anyExpression = in.keyConditionExpression() != null
                || in.filterExpression() != null
                || in.projectionExpression() != null;
        io.partita.server.op.item.ItemExpressions.placeholdersNeedExpressions(
                anyExpression, in.expressionAttributeNames(), in.expressionAttributeValues());
        ExpressionResolver resolver =
                new ExpressionResolver(in.expressionAttributeNames(), in.expressionAttributeValues());
        if (in.keyConditionExpression() == null) {
            checkIndexable(in.keyConditions());
        }
        Condition keyCondition = in.keyConditionExpression() != null
                ? resolver.resolve(
                        cache.condition(in.keyConditionExpression(), "KeyConditionExpression"),
                        "KeyConditionExpression")
                : LegacyConditions.conditions(in.keyConditions(), null);
        Condition filter =
                ReadRequests.filter(cache, resolver, in.filterExpression(), in.queryFilter(), in.conditionalOperator());
        List<Path> projection =
                ReadRequests.projection(cache, resolver, in.projectionExpression(), in.attributesToGet());
        resolver.checkAllUsed();
        if (in.keyConditionExpression() != null) {
            KeyConditionPlanner.checkShape(keyCondition);
        }

        Table table =
                storage.tables().require(TableNames.resolve(context, in.tableName()), "Requested resource not found");
        ReadTarget target = ReadTarget.of(table, in.indexName());
        ReadRequests.checkTarget(target, in.consistentRead(), in.select());
        // The start key's shape before the key condition against the schema: DynamoDB answers "The provided starting
        // key is invalid" for a request with both wrong (captured answers of DynamoDB's Query).
        byte[] start = in.exclusiveStartKey() == null ? null : target.queryStartKey(in.exclusiveStartKey());
        KeyConditionPlanner.IndexKeyCondition key =
                KeyConditionPlanner.plan(keyCondition, target.partitionKeys(), target.sortKeys());
        ReadRequests.checkFilter(target, filter);
        boolean forward = !Boolean.FALSE.equals(in.scanIndexForward());
        KeyRanges.Range range = range(target, key);
        if (start != null) {
            checkStart(target, key, in.exclusiveStartKey());
            range = range.resumeAfter(start, forward);
        }
        KeyRanges.Range pageRange = range;
        boolean fetch = target.fetches(in.select(), projection);
        long hash = IndexKeyEncoder.partitionHash(key.partition());
        if (!target.global()) {
            // The table's own partition key (a local secondary index's too): its range's store alone holds its items.
            io.partita.storage.table.HashRange.require(table.metadata(), hash);
        }
        io.partita.storage.table.HashRange merged =
                target.global() ? mergedRange(table, in, keyCondition, filter) : null;
        // A Query of a GSI of a cut table answered here alone: the table's key it binds, checked again once read.
        Long bound = target.global() && merged == null && table.metadata().hashRange() != null
                ? boundHash(table, keyCondition, filter)
                : null;
        if (Boolean.TRUE.equals(in.consistentRead())) {
            storage.awaitConsistentRead();
        }
        return ReadRequests.answer(
                context,
                target,
                hash,
                key.partition().get(0),
                in.consistentRead(),
                in.select(),
                in.returnConsumedCapacity(),
                () -> {
                    PageReader.Page page = PageReader.read(
                            storage,
                            target,
                            pageRange,
                            forward,
                            in.limit(),
                            filter,
                            projection,
                            "COUNT".equals(in.select()),
                            fetch,
                            false,
                            PageReader.MAX_PAGE_BYTES,
                            merged,
                            merged != null);
                    if (!target.global()) {
                        // Again once read, as GetItem checks: a range move may have taken the key elsewhere meanwhile.
                        storage.requireServedAfterRead(table, hash);
                    } else if (merged != null) {
                        // A range move may have narrowed the range while the page was read: sent again.
                        storage.requireRangeAfterRead(table, merged);
                    } else if (bound != null) {
                        storage.requireServedAfterRead(table, bound);
                    }
                    return page;
                });
    }

    /**
     * The hash range whose items a Query of a global secondary index of {@code table} reads here, when its store holds
     * one range of a table cut by them: this group's page of a Query over every group ({@link #ofRange}: the range the
     * merging node's record names, which must be the store's), named row by row; or null, for a Query answered here
     * alone: of a table kept whole (or whose store holds every hash), or whose key condition (or a PartiQL SELECT's
     * filter, of a conjunct) binds the table's partition key by equality (every item it can match is in that key's
     * range: a 503 when it is not this store's). Any other is a 503 too: the router's record of the table's ranges is
     * behind, and, sent again, the Query goes to every group.
     */
    private io.partita.storage.table.HashRange mergedRange(
            Table table, QueryInput in, Condition keyCondition, Condition filter) {
        io.partita.storage.table.HashRange held = table.metadata().hashRange();
        if (held == null) {
            return null;
        }
        if (ranged && in.partitaHashRange() != null) {
            if (held.receiving()) {
                throw io.partita.storage.table.HashRange.receiving(table.metadata());
            }
            if (!in.partitaHashRange().equals(ScanHandler.text(held))) {
                throw new ApiException(
                        io.partita.protocol.error.ErrorCode.SERVICE_UNAVAILABLE,
                        "Partita: the hash range of table " + table.metadata().name() + " this group holds is "
                                + ScanHandler.text(held) + ", not " + in.partitaHashRange() + " (a range moved): send"
                                + " it again");
            }
            return held;
        }
        Long bound = boundHash(table, keyCondition, filter);
        if (bound != null) {
            io.partita.storage.table.HashRange.require(table.metadata(), bound);
        } else if (held.first() != 0 || held.last() != -1L || held.receiving()) {
            if (statements) {
                throw ApiException.validation("Partita's cluster does not run a SELECT of global secondary index "
                        + in.indexName() + " of table " + table.metadata().name() + " that binds no one value of the"
                        + " table's partition key yet: the table's partitions are Raft groups of their own"
                        + " (--cluster-partition-groups, docs/CLUSTER.md); a Query of the index runs");
            }
            throw new ApiException(
                    io.partita.protocol.error.ErrorCode.SERVICE_UNAVAILABLE,
                    "Partita: table " + table.metadata().name() + " is cut by hash ranges, and a Query of its global"
                            + " secondary index " + in.indexName() + " reads every range (its router's record of"
                            + " the table's ranges is behind); send it again");
        }
        return null;
    }

    /**
     * The hash of the value a Query's key condition (null: a Scan's, none), or else a conjunct of its filter, binds
     * {@code table}'s partition key to by equality; or null (none, or a value no key can have).
     */
    static Long boundHash(Table table, Condition keyCondition, Condition filter) {
        String partitionKey = table.metadata().keySchema().partitionKey().name();
        AttributeValue bound = keyCondition == null ? null : KeyConditionPlanner.equalityOf(keyCondition, partitionKey);
        if (bound == null) {
            bound = conjunctEquality(filter, partitionKey);
        }
        boolean key = bound instanceof AttributeValue.S
                || bound instanceof AttributeValue.N
                || bound instanceof AttributeValue.B;
        return key ? io.partita.storage.key.ItemKeyEncoder.partitionHash(bound) : null;
    }

    /**
     * The value {@code condition} binds top-level attribute {@code name} to by equality, itself or a conjunct; or null.
     */
    private static AttributeValue conjunctEquality(Condition condition, String name) {
        if (condition instanceof Condition.And and) {
            AttributeValue left = conjunctEquality(and.left(), name);
            return left != null ? left : conjunctEquality(and.right(), name);
        }
        if (condition instanceof Condition.Compare c && c.comparator() == Condition.Comparator.EQ) {
            if (c.left() instanceof Path p
                    && p.isTopLevel()
                    && p.head().name().equals(name)
                    && c.right() instanceof io.partita.protocol.expr.ast.Operand.Constant v) {
                return v.value();
            }
            if (c.right() instanceof Path p
                    && p.isTopLevel()
                    && p.head().name().equals(name)
                    && c.left() instanceof io.partita.protocol.expr.ast.Operand.Constant v) {
                return v.value();
            }
        }
        return null;
    }

    /** The operators a key can be queried by ("Query": EQ, LE, LT, GE, GT, BEGINS_WITH, BETWEEN). */
    private static final java.util.Set<String> INDEXABLE =
            java.util.Set.of("EQ", "LE", "LT", "GE", "GT", "BEGINS_WITH", "BETWEEN");

    /**
     * Legacy KeyConditions with another operator (NE, NULL, CONTAINS, IN …) are refused as DynamoDB refuses them, in
     * the words of AWS's own DAX client's error table, before they would be read as an expression's conditions.
     */
    private static void checkIndexable(Map<String, io.partita.protocol.message.LegacyCondition> conditions) {
        if (conditions == null) {
            return;
        }
        for (var c : conditions.values()) {
            if (c != null && c.comparisonOperator() != null && !INDEXABLE.contains(c.comparisonOperator())) {
                throw ApiException.validation("Attempted conditional constraint is not an indexable operation");
            }
        }
    }

    /**
     * A start key must lie where the query reads (dynalite's tests against DynamoDB record each message): in the
     * queried partition, on the sort-key condition's side, and not on a query of one whole key, which has no second
     * page.
     */
    private static void checkStart(
            ReadTarget target, KeyConditionPlanner.IndexKeyCondition key, Map<String, AttributeValue> start) {
        List<io.partita.protocol.model.KeySchema.KeyAttribute> sortKeys = target.sortKeys();
        // Only a table's key names one item: an index's may be shared by many.
        boolean oneRow = target.definition() == null
                && (sortKeys.isEmpty()
                        || (key.sortEquals().size() == sortKeys.size() - 1 && "EQ".equals(key.sortOperator())));
        if (oneRow) {
            throw ApiException.validation("The query can return at most one row and cannot be restarted");
        }
        List<io.partita.protocol.model.KeySchema.KeyAttribute> partitionKeys = target.partitionKeys();
        for (int i = 0; i < partitionKeys.size(); i++) {
            if (!Values.equal(
                    start.get(partitionKeys.get(i).name()), key.partition().get(i))) {
                throw ApiException.validation(
                        "The provided starting key is outside query boundaries based on provided conditions");
            }
        }
        for (int i = 0; i < key.sortEquals().size(); i++) {
            if (!Values.equal(
                    start.get(sortKeys.get(i).name()), key.sortEquals().get(i))) {
                throw ApiException.validation(
                        "The provided starting key is outside query boundaries based on provided conditions");
            }
        }
        if (key.sortOperator() != null) {
            AttributeValue v = start.get(sortKeys.get(key.sortEquals().size()).name());
            if (!satisfies(v, key.sortOperator(), key.a(), key.b())) {
                throw ApiException.validation("The provided starting key does not match the range key predicate");
            }
        }
    }

    private static boolean satisfies(AttributeValue v, String op, AttributeValue a, AttributeValue b) {
        return switch (op) {
            case "EQ" -> Values.compare(v, a) == 0;
            case "LT" -> Values.compare(v, a) < 0;
            case "LE" -> Values.compare(v, a) <= 0;
            case "GT" -> Values.compare(v, a) > 0;
            case "GE" -> Values.compare(v, a) >= 0;
            case "BETWEEN" -> Values.compare(v, a) >= 0 && Values.compare(v, b) <= 0;
            case "BEGINS_WITH" -> beginsWith(v, a);
            default -> true;
        };
    }

    private static boolean beginsWith(AttributeValue v, AttributeValue prefix) {
        if (v instanceof AttributeValue.S s && prefix instanceof AttributeValue.S p) {
            return s.value().startsWith(p.value());
        }
        if (v instanceof AttributeValue.B b && prefix instanceof AttributeValue.B p) {
            byte[] x = b.value().unsafeArray();
            byte[] y = p.value().unsafeArray();
            return x.length >= y.length && java.util.Arrays.equals(x, 0, y.length, y, 0, y.length);
        }
        return false;
    }

    /** The keys a key condition selects: one partition of the table or index, narrowed by its sort attributes. */
    private static KeyRanges.Range range(ReadTarget target, KeyConditionPlanner.IndexKeyCondition key) {
        if (target.index() == null) {
            return key.sortOperator() == null
                    ? KeyRanges.partition(key.partition().get(0))
                    : KeyRanges.sortKey(key.partition().get(0), key.sortOperator(), key.a(), key.b());
        }
        byte[] prefix = IndexKeyEncoder.extend(IndexKeyEncoder.partitionPrefix(key.partition()), key.sortEquals());
        return key.sortOperator() == null
                ? KeyRanges.prefixed(prefix)
                : KeyRanges.within(prefix, key.sortOperator(), key.a(), key.b());
    }

    /** KeyConditions alone may be combined with expressions; any other legacy parameter may not. */
    private static void checkMixing(QueryInput in) {
        List<String> legacy = new ArrayList<>();
        if (in.attributesToGet() != null) {
            legacy.add("AttributesToGet");
        }
        if (in.queryFilter() != null) {
            legacy.add("QueryFilter");
        }
        if (in.conditionalOperator() != null) {
            legacy.add("ConditionalOperator");
        }
        if (in.keyConditions() != null && (!legacy.isEmpty() || in.keyConditionExpression() != null)) {
            legacy.add("KeyConditions");
        }
        List<String> expressions = new ArrayList<>();
        if (in.projectionExpression() != null) {
            expressions.add("ProjectionExpression");
        }
        if (in.filterExpression() != null) {
            expressions.add("FilterExpression");
        }
        if (in.keyConditionExpression() != null) {
            expressions.add("KeyConditionExpression");
        }
        if (!legacy.isEmpty() && !expressions.isEmpty()) {
            throw ApiException.validation("Can not use both expression and non-expression parameters in the same"
                    + " request: Non-expression parameters: {" + String.join(", ", legacy)
                    + "} Expression parameters: {" + String.join(", ", expressions) + "}");
        }
    }
}
