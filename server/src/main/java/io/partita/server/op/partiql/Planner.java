package io.partita.server.op.partiql;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.message.DeleteItemInput;
import io.partita.protocol.message.GetItemInput;
import io.partita.protocol.message.PutItemInput;
import io.partita.protocol.message.QueryInput;
import io.partita.protocol.message.ScanInput;
import io.partita.protocol.message.UpdateItemInput;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.KeySchema;
import io.partita.protocol.partiql.Partiql;
import io.partita.protocol.partiql.Partiql.Expr;
import io.partita.server.op.TableNames;
import io.partita.storage.StorageEngine;
import io.partita.storage.index.IndexDefinition;
import io.partita.storage.index.LiveIndex;
import io.partita.storage.table.TableCatalog.Table;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a parsed PartiQL statement into the DynamoDB request it amounts to, as "PartiQL select statements for
 * DynamoDB" describes the choice: a SELECT whose WHERE binds the whole primary key by equality (and nothing else) is
 * a GetItem; one that binds the partition key by equality is a Query (with a condition on the sort key as its key
 * condition, the rest as its filter); any other SELECT is a Scan with the WHERE as its filter — "a SELECT without the
 * key is still a scan". INSERT is a PutItem that the item must not exist for, UPDATE an UpdateItem that it must
 * exist for (PartiQL's UPDATE is not an upsert), DELETE a DeleteItem; their WHERE must bind the whole key.
 */
final class Planner {
    /** "ql-operators": IN takes "at max 50 hash attribute values". */
    static final int MAX_PARTITION_VALUES = 50;

    static final String MANDATORY_KEY = "Where clause does not contain a mandatory equality on all key attributes";

    private final StorageEngine storage;

    Planner(StorageEngine storage) {
        this.storage = storage;
    }

    /**
     * A SELECT's plan: exactly one of the three requests; {@code after}, when not null, the conditions a Query
     * cannot take as its filter (DynamoDB refuses key attributes there), applied to the items it returns.
     */
    record Read(
            Table table,
            GetItemInput get,
            QueryInput query,
            ScanInput scan,
            PostFilter after,
            List<QueryInput> queries,
            boolean oneRowEach,
            List<AttributeValue> partitionValues) {
        Read(Table table, GetItemInput get, QueryInput query, ScanInput scan) {
            this(table, get, query, scan, null, null, false, null);
        }

        Read(Table table, GetItemInput get, QueryInput query, ScanInput scan, PostFilter after) {
            this(table, get, query, scan, after, null, false, null);
        }
    }

    /**
     * A condition expression with its own names and values, evaluated on the items a Query returned, and the
     * statement's projection (null for all), applied after it.
     */
    record PostFilter(
            String condition, String projection, Map<String, String> names, Map<String, AttributeValue> values) {}

    /** A write's plan: exactly one of the three requests; {@code insert}: a failed condition is a duplicate. */
    record Write(Table table, PutItemInput put, UpdateItemInput update, DeleteItemInput delete) {
        boolean insert() {
            return put != null;
        }
    }

    Table table(String name) {
        return storage.tables().require(TableNames.nameOf(name), "Requested resource not found");
    }

    /** The key bindings among {@code conjuncts}: attribute name to value, for equality with a literal. */
    private static Map<String, AttributeValue> equalities(List<Expr> conjuncts, List<String> keyNames) {
        Map<String, AttributeValue> bound = new LinkedHashMap<>();
        for (Expr e : conjuncts) {
            Binding b = binding(e, keyNames);
            if (b != null && b.op.equals("=")) {
                if (bound.containsKey(b.name)) {
                    throw ApiException.validation("Multiple conditions on same key " + b.name
                            + ". Only single item Update/Insert/Delete are" + " supported");
                }
                bound.put(b.name, b.value);
            }
        }
        return bound;
    }

    /** A comparison of a key attribute with a value, written either way round (flipped to put the name first). */
    private record Binding(String name, String op, AttributeValue value) {}

    private static Binding binding(Expr e, List<String> keyNames) {
        if (!(e instanceof Partiql.Compare c)) {
            return null;
        }
        if (c.left() instanceof Partiql.Path p
                && p.simple()
                && keyNames.contains(p.head())
                && c.right() instanceof Partiql.Value v) {
            return new Binding(p.head(), c.op(), v.value());
        }
        if (c.right() instanceof Partiql.Path p
                && p.simple()
                && keyNames.contains(p.head())
                && c.left() instanceof Partiql.Value v) {
            String flipped = switch (c.op()) {
                case "<" -> ">";
                case "<=" -> ">=";
                case ">" -> "<";
                case ">=" -> "<=";
                default -> c.op();
            };
            return new Binding(p.head(), flipped, v.value());
        }
        return null;
    }

    /** The item's key from a write's WHERE, which must bind every key attribute; the rest is its condition. */
    private record Keyed(Map<String, AttributeValue> key, List<Expr> rest) {}

    private static Keyed keyed(Table table, Expr where) {
        KeySchema schema = table.metadata().keySchema();
        List<String> keyNames =
                schema.attributes().stream().map(KeySchema.KeyAttribute::name).toList();
        List<Expr> conjuncts = Expressions.conjuncts(where);
        Map<String, AttributeValue> bound = equalities(conjuncts, keyNames);
        if (!bound.keySet().containsAll(keyNames)) {
            throw ApiException.validation(MANDATORY_KEY);
        }
        List<Expr> rest = new ArrayList<>();
        for (Expr e : conjuncts) {
            Binding b = binding(e, keyNames);
            if (b == null || !b.op.equals("=")) {
                rest.add(e);
            }
        }
        Map<String, AttributeValue> key = new LinkedHashMap<>();
        for (String k : keyNames) {
            key.put(k, bound.get(k));
        }
        return new Keyed(key, rest);
    }

    Read select(
            Partiql.Select s,
            Boolean consistentRead,
            Long limit,
            Map<String, AttributeValue> startKey,
            String returnConsumedCapacity) {
        Table table = table(s.table());
        List<String> partitionKeys;
        List<String> sortKeys;
        if (s.index() != null) {
            LiveIndex index = table.indexes().find(s.index());
            if (index == null) {
                throw ApiException.validation("The table does not have the specified index: " + s.index());
            }
            IndexDefinition d = index.definition();
            partitionKeys =
                    d.partitionKeys().stream().map(KeySchema.KeyAttribute::name).toList();
            sortKeys = d.sortKeys().stream().map(KeySchema.KeyAttribute::name).toList();
            if (d.global() && !d.projectsAll() && s.projection() != null) {
                checkProjected(table, d, s.projection());
            }
        } else {
            KeySchema schema = table.metadata().keySchema();
            partitionKeys = List.of(schema.partitionKey().name());
            sortKeys = schema.sortKey() == null
                    ? List.of()
                    : List.of(schema.sortKey().name());
        }
        Expressions x = new Expressions();
        // Written into x only by the plan that uses it: an unused placeholder is an error.
        java.util.function.Supplier<String> projection =
                () -> s.projection() == null ? null : x.projection(s.projection());
        List<Expr> conjuncts = Expressions.conjuncts(s.where());
        List<String> keyNames = new ArrayList<>(partitionKeys);
        keyNames.addAll(sortKeys);
        Map<String, AttributeValue> bound = equalities(conjuncts, keyNames);
        boolean ordered = !s.orderBy().isEmpty();
        boolean byPartition = bound.keySet().containsAll(partitionKeys) && partitionKeys.size() == 1;
        checkOrder(s, byPartition, keyNames);

        boolean wholeKey = bound.keySet().containsAll(keyNames);
        if (s.index() == null && wholeKey && conjuncts.size() == keyNames.size() && !ordered && startKey == null) {
            String projected = projection.get();
            return new Read(
                    table,
                    new GetItemInput(
                            s.table(), bound, null, consistentRead, returnConsumedCapacity, projected, x.names()),
                    null,
                    null);
        }
        if (byPartition) {
            return partitionQuery(
                    s,
                    table,
                    conjuncts,
                    partitionKeys,
                    sortKeys,
                    x,
                    projection,
                    consistentRead,
                    limit,
                    startKey,
                    returnConsumedCapacity);
        }
        if (partitionKeys.size() == 1 && !ordered) {
            List<AttributeValue> values = new ArrayList<>();
            List<Read> each = perPartition(
                    s,
                    table,
                    conjuncts,
                    partitionKeys,
                    sortKeys,
                    consistentRead,
                    limit,
                    returnConsumedCapacity,
                    values);
            if (each != null) {
                // Each Query names one whole item (its key all bound by equality): it has no second page.
                boolean oneRow = s.index() == null
                        && (sortKeys.isEmpty() || bound.keySet().containsAll(sortKeys));
                return new Read(
                        table,
                        null,
                        null,
                        null,
                        each.get(0).after(),
                        each.stream().map(Read::query).toList(),
                        oneRow,
                        List.copyOf(values));
            }
        }
        String projected = projection.get();
        String filter = x.conditionOf(conjuncts);
        return new Read(
                table,
                null,
                null,
                new ScanInput(
                        s.table(),
                        s.index(),
                        null,
                        limit,
                        null,
                        null,
                        null,
                        startKey,
                        returnConsumedCapacity,
                        null,
                        null,
                        projected,
                        filter,
                        x.names(),
                        x.values(),
                        consistentRead,
                        null,
                        null));
    }

    /** A Query of the one partition whose key the WHERE binds by equality: the sort key's condition as its key. */
    private static Read partitionQuery(
            Partiql.Select s,
            Table table,
            List<Expr> conjuncts,
            List<String> partitionKeys,
            List<String> sortKeys,
            Expressions x,
            java.util.function.Supplier<String> projection,
            Boolean consistentRead,
            Long limit,
            Map<String, AttributeValue> startKey,
            String returnConsumedCapacity) {
        List<String> keyNames = new ArrayList<>(partitionKeys);
        keyNames.addAll(sortKeys);
        boolean ordered = !s.orderBy().isEmpty();
        String pk = partitionKeys.get(0);
        String sk = sortKeys.isEmpty() ? null : sortKeys.get(0);
        Binding pkBinding = null;
        Expr skCondition = null;
        List<Expr> filter = new ArrayList<>();
        List<Expr> after = new ArrayList<>();
        for (Expr e : conjuncts) {
            Binding b = binding(e, keyNames);
            if (pkBinding == null && b != null && b.name.equals(pk) && b.op.equals("=")) {
                pkBinding = b;
            } else if (skCondition == null && sk != null && sortCondition(e, sk)) {
                skCondition = e;
            } else if (java.util.Collections.disjoint(Expressions.mentioned(e), keyNames)) {
                filter.add(e);
            } else {
                after.add(e);
            }
        }
        String key = x.name(pk) + " = " + x.value(pkBinding.value);
        if (skCondition != null) {
            key += " AND " + sortKeyCondition(x, skCondition, sk);
        }
        PostFilter post = null;
        String queryProjection = null;
        if (after.isEmpty()) {
            queryProjection = projection.get();
        } else {
            // The Query reads whole items, so that the conditions see what they test; the statement's projection
            // is applied after them.
            Expressions y = new Expressions();
            String condition = y.conditionOf(after);
            post = new PostFilter(
                    condition, s.projection() == null ? null : y.projection(s.projection()), y.names(), y.values());
        }
        boolean descending = ordered && s.orderBy().get(s.orderBy().size() - 1).descending();
        return new Read(
                table,
                null,
                new QueryInput(
                        s.table(),
                        s.index(),
                        null,
                        null,
                        limit,
                        consistentRead,
                        null,
                        null,
                        null,
                        descending ? Boolean.FALSE : null,
                        startKey,
                        returnConsumedCapacity,
                        queryProjection,
                        x.conditionOf(filter),
                        key,
                        x.names(),
                        x.values()),
                null,
                post);
    }

    /**
     * {@code pk IN [a, b]} or {@code pk = a OR pk = b}: one Query per partition key value, in the statement's order,
     * each with the rest of the WHERE — "PartiQL select statements for DynamoDB" lists both forms among those that do
     * not result in a full table scan. Null when the WHERE has no such condition. At most 50 values
     * ("ql-operators": "at max 50 hash attribute values"). Each Query's partition key value is added to {@code
     * valuesOut}, in the same order.
     */
    private static List<Read> perPartition(
            Partiql.Select s,
            Table table,
            List<Expr> conjuncts,
            List<String> partitionKeys,
            List<String> sortKeys,
            Boolean consistentRead,
            Long limit,
            String returnConsumedCapacity,
            List<AttributeValue> valuesOut) {
        String pk = partitionKeys.get(0);
        for (int i = 0; i < conjuncts.size(); i++) {
            List<AttributeValue> values = partitionValues(conjuncts.get(i), pk);
            if (values == null) {
                continue;
            }
            if (values.size() > MAX_PARTITION_VALUES) {
                throw ApiException.validation("The IN list of the partition key " + pk + " has " + values.size()
                        + " values; at most " + MAX_PARTITION_VALUES + " are allowed");
            }
            List<Read> reads = new ArrayList<>();
            for (AttributeValue v : new java.util.LinkedHashSet<>(values)) {
                valuesOut.add(v);
                List<Expr> bound = new ArrayList<>(conjuncts);
                bound.set(i, new Partiql.Compare("=", new Partiql.Path(List.<Object>of(pk)), new Partiql.Value(v)));
                Expressions x = new Expressions();
                java.util.function.Supplier<String> projection =
                        () -> s.projection() == null ? null : x.projection(s.projection());
                reads.add(partitionQuery(
                        s,
                        table,
                        bound,
                        partitionKeys,
                        sortKeys,
                        x,
                        projection,
                        consistentRead,
                        limit,
                        null,
                        returnConsumedCapacity));
            }
            return reads;
        }
        return null;
    }

    /** The values of {@code pk IN [values]} or of {@code pk = a OR pk = b …}, or null for any other condition. */
    private static List<AttributeValue> partitionValues(Expr e, String pk) {
        List<AttributeValue> values = new ArrayList<>();
        if (e instanceof Partiql.In in) {
            if (!(in.operand() instanceof Partiql.Path p
                    && p.simple()
                    && p.head().equals(pk))) {
                return null;
            }
            for (Expr v : in.values()) {
                if (!(v instanceof Partiql.Value value)) {
                    return null;
                }
                values.add(value.value());
            }
            return values;
        }
        if (e instanceof Partiql.Logic l && !l.and()) {
            for (Expr d : Expressions.operands(l)) {
                Binding b = binding(d, List.of(pk));
                if (b == null || !b.op.equals("=")) {
                    return null;
                }
                values.add(b.value);
            }
            return values;
        }
        return null;
    }

    /**
     * A SELECT of a GSI names only what the index projects: "One or more parameter values were invalid: Global
     * secondary index gsi2 does not project [alternate, mymap]", the missing attributes in statement order (as
     * public captures of DynamoDB's answers show).
     */
    private static void checkProjected(Table table, IndexDefinition d, List<Partiql.Path> projection) {
        java.util.Set<String> projected = new java.util.HashSet<>(d.projectedNonKeys());
        table.metadata().keySchema().attributes().forEach(k -> projected.add(k.name()));
        d.keyAttributes().forEach(k -> projected.add(k.name()));
        java.util.LinkedHashSet<String> missing = new java.util.LinkedHashSet<>();
        for (Partiql.Path p : projection) {
            if (!projected.contains(p.head())) {
                missing.add(p.head());
            }
        }
        if (!missing.isEmpty()) {
            throw ApiException.invalidParameter(
                    "Global secondary index " + d.name() + " does not project " + new ArrayList<>(missing));
        }
    }

    /** DynamoDB's ORDER BY rules: on key attributes, and only where the partition key is bound. */
    private static void checkOrder(Partiql.Select s, boolean byPartition, List<String> keyNames) {
        if (s.orderBy().isEmpty()) {
            return;
        }
        if (s.where() == null) {
            throw ApiException.validation("Must have WHERE clause in the statement when using ORDER BY clause.");
        }
        for (Partiql.Order o : s.orderBy()) {
            if (!keyNames.contains(o.attribute())) {
                throw ApiException.validation(
                        "Variable reference " + o.attribute() + " in ORDER BY clause must be part of the primary key");
            }
        }
        if (!byPartition) {
            throw ApiException.validation("Must have at least one non-optional hash key condition in WHERE clause when"
                    + " using ORDER BY clause.");
        }
    }

    private static boolean sortCondition(Expr e, String sk) {
        if (e instanceof Partiql.Between b) {
            return b.operand() instanceof Partiql.Path p
                    && p.simple()
                    && p.head().equals(sk)
                    && b.low() instanceof Partiql.Value
                    && b.high() instanceof Partiql.Value;
        }
        if (e instanceof Partiql.Call c) {
            return c.name().equals("begins_with")
                    && c.arguments().size() == 2
                    && c.arguments().get(0) instanceof Partiql.Path p
                    && p.simple()
                    && p.head().equals(sk)
                    && c.arguments().get(1) instanceof Partiql.Value;
        }
        Binding b = binding(e, List.of(sk));
        return b != null && !b.op.equals("<>");
    }

    private static String sortKeyCondition(Expressions x, Expr e, String sk) {
        if (e instanceof Partiql.Between b) {
            return x.name(sk) + " BETWEEN " + x.operand(b.low()) + " AND " + x.operand(b.high());
        }
        if (e instanceof Partiql.Call c) {
            return "begins_with(" + x.name(sk) + ", " + x.operand(c.arguments().get(1)) + ")";
        }
        Binding b = binding(e, List.of(sk));
        return x.name(sk) + " " + b.op + " " + x.value(b.value);
    }

    Write insert(Partiql.Insert s, String returnConsumedCapacity, String onFailure) {
        Table table = table(s.table());
        Expressions x = new Expressions();
        List<String> absent = new ArrayList<>();
        for (KeySchema.KeyAttribute k : table.metadata().keySchema().attributes()) {
            absent.add("attribute_not_exists(" + x.name(k.name()) + ")");
        }
        return new Write(
                table,
                new PutItemInput(
                        s.table(),
                        s.item().values(),
                        null,
                        returnConsumedCapacity,
                        null,
                        String.join(" AND ", absent),
                        x.names(),
                        null,
                        null,
                        null,
                        onFailure),
                null,
                null);
    }

    Write update(Partiql.Update s, String returnConsumedCapacity, String onFailure) {
        Table table = table(s.table());
        Keyed keyed = keyed(table, s.where());
        Expressions x = new Expressions();
        String update = x.update(s.actions());
        // Not an upsert: the item must exist ("If the WHERE clause … does not evaluate to true for any item …
        // ConditionalCheckFailedException is returned").
        String condition = x.conditionOf(
                List.of("attribute_exists("
                        + x.name(table.metadata().keySchema().partitionKey().name()) + ")"),
                keyed.rest());
        String returnValues = s.returning() == null
                ? null
                : switch (s.returning()) {
                    case "ALL OLD" -> "ALL_OLD";
                    case "MODIFIED OLD" -> "UPDATED_OLD";
                    case "ALL NEW" -> "ALL_NEW";
                    default -> "UPDATED_NEW";
                };
        return new Write(
                table,
                null,
                new UpdateItemInput(
                        s.table(),
                        keyed.key(),
                        update,
                        condition,
                        x.names(),
                        x.values(),
                        null,
                        null,
                        null,
                        returnValues,
                        returnConsumedCapacity,
                        null,
                        onFailure),
                null);
    }

    Write delete(Partiql.Delete s, String returnConsumedCapacity, String onFailure) {
        Table table = table(s.table());
        Keyed keyed = keyed(table, s.where());
        Expressions x = new Expressions();
        return new Write(
                table,
                null,
                null,
                new DeleteItemInput(
                        s.table(),
                        keyed.key(),
                        s.returning() == null ? null : "ALL_OLD",
                        returnConsumedCapacity,
                        null,
                        x.conditionOf(keyed.rest()),
                        x.names(),
                        x.values(),
                        null,
                        null,
                        onFailure));
    }

    /** EXISTS in a write transaction: the whole key and at least one more condition, as a ConditionCheck. */
    record Check(Table table, Map<String, AttributeValue> key, Expressions expressions, String condition) {}

    Check exists(Partiql.Exists s) {
        Partiql.Select select = s.select();
        Table table = table(select.table());
        if (select.index() != null) {
            throw ApiException.validation("Operations on indices are not supported in transactions");
        }
        Keyed keyed;
        try {
            keyed = keyed(table, select.where());
        } catch (ApiException e) {
            throw ApiException.validation("EXISTS() must contain a single item read with additional condition");
        }
        if (keyed.rest().isEmpty()) {
            throw ApiException.validation("EXISTS() must contain a single item read with additional condition");
        }
        // The item must exist, as a SELECT must find it for EXISTS to hold.
        Expressions x = new Expressions();
        String condition = x.conditionOf(
                List.of("attribute_exists("
                        + x.name(table.metadata().keySchema().partitionKey().name()) + ")"),
                keyed.rest());
        return new Check(table, keyed.key(), x, condition);
    }

    /** A SELECT in a transaction or batch: the whole key by equality and nothing else. */
    Map<String, AttributeValue> keyOnly(Partiql.Select s, String message) {
        Table table = table(s.table());
        if (s.index() != null) {
            throw ApiException.validation(message);
        }
        KeySchema schema = table.metadata().keySchema();
        List<String> keyNames =
                schema.attributes().stream().map(KeySchema.KeyAttribute::name).toList();
        List<Expr> conjuncts = Expressions.conjuncts(s.where());
        Map<String, AttributeValue> bound;
        try {
            bound = equalities(conjuncts, keyNames);
        } catch (ApiException e) {
            throw ApiException.validation(message);
        }
        if (!bound.keySet().containsAll(keyNames)
                || conjuncts.size() != keyNames.size()
                || !s.orderBy().isEmpty()) {
            throw ApiException.validation(message);
        }
        return bound;
    }
}
