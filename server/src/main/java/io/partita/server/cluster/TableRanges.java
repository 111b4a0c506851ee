package io.partita.server.cluster;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.partita.protocol.expr.ExpressionCache;
import io.partita.protocol.expr.ExpressionResolver;
import io.partita.protocol.expr.KeyConditionPlanner;
import io.partita.protocol.json.AttributeValueCodec;
import io.partita.protocol.json.DynamoJson;
import io.partita.protocol.message.ExecuteStatementInput;
import io.partita.protocol.message.LegacyCondition;
import io.partita.protocol.message.QueryInput;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.partiql.Partiql;
import io.partita.protocol.partiql.PartiqlParser;
import io.partita.storage.key.ItemKeyEncoder;
import io.partita.storage.partition.PartitionMap;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * A table whose partitions are Raft groups of their own ({@code --cluster-partition-groups}, docs/CLUSTER.md): its
 * partition key's name, and the hash ranges the table was cut into at its creation, each with its group, in hash order.
 * Range {@code i} holds the items whose partition key hashes ({@link ItemKeyEncoder#partitionHash}, as the store places
 * them) from {@code starts[i]} (unsigned) up to the next range's start; the first range's group is the table's own, as
 * a table's record names it.
 *
 * @param key the name of the table's partition key
 * @param starts each range's first hash, in unsigned order, the first 0
 * @param groups each range's group
 * @param live whether the table is there ({@code live} in its record): a deleted table's record keeps its ranges until
 *     the name is placed anew
 * @param moving a move of part of a range to a new group under way ({@link RangeMove}), or null
 */
record TableRanges(String key, long[] starts, List<UUID> groups, boolean live, Moving moving) {
    /**
     * A move under way ({@code moving} in the table's record): the hashes from {@code from} up to the end of {@code
     * source}'s range go to the new group {@code group}. Until {@code switched} the ranges do not name it, and every
     * request of those hashes goes to {@code source} (which refuses them once fenced); from then on they name it,
     * and {@code source} deletes what it holds outside its own range.
     */
    record Moving(long from, UUID group, UUID source, boolean switched) {
        com.fasterxml.jackson.databind.node.ObjectNode toJson() {
            com.fasterxml.jackson.databind.node.ObjectNode out = JsonNodeFactory.instance.objectNode();
            return out.put("from", Long.toUnsignedString(from))
                    .put("group", group.toString())
                    .put("source", source.toString())
                    .put("switched", switched);
        }
    }

    TableRanges(String key, long[] starts, List<UUID> groups, boolean live) {
        this(key, starts, groups, live, null);
    }

    TableRanges {
        groups = List.copyOf(groups);
        if (starts.length != groups.size() || starts.length == 0 || starts[0] != 0) {
            throw new IllegalArgumentException("ranges " + java.util.Arrays.toString(starts) + " of groups " + groups);
        }
    }

    /**
     * A table cut into {@code n} ranges of equal width, as its store cuts its {@code n} partitions at its creation
     * ({@link PartitionMap#evenStarts}), so that each group's items are its store's partition of the same place.
     */
    static TableRanges even(String key, List<UUID> groups) {
        return new TableRanges(key, PartitionMap.evenStarts(groups.size()), groups, true);
    }

    /** The group of the range hash {@code hash} falls in. */
    UUID groupOf(long hash) {
        return groups.get(indexOf(hash));
    }

    /** The place of the range hash {@code hash} falls in. */
    int indexOf(long hash) {
        int at = 0;
        for (int i = 1; i < starts.length && Long.compareUnsigned(starts[i], hash) <= 0; i++) {
            at = i;
        }
        return at;
    }

    /**
     * The group of the range of the items whose partition key is {@code value}; the first group's for a value that is
     * no key's type (a boolean, a null, a list, a map, a set), which refuses the request as a single node would.
     */
    UUID groupOf(AttributeValue value) {
        if (!(value instanceof AttributeValue.S
                || value instanceof AttributeValue.N
                || value instanceof AttributeValue.B)) {
            return groups.get(0);
        }
        return groupOf(ItemKeyEncoder.partitionHash(value));
    }

    /**
     * The group of a batch's key or item {@code keyOrItem} (a JSON map of attributes, as the request gave it): its
     * partition key's range's; the first group's for one that names none as it should, which refuses it as a single
     * node would.
     */
    UUID groupOfEntry(JsonNode keyOrItem) {
        JsonNode value = keyOrItem == null ? null : keyOrItem.get(key);
        if (value == null || !value.isObject()) {
            return groups.get(0);
        }
        try (JsonParser p = DynamoJson.mapper().treeAsTokens(value)) {
            p.nextToken();
            return groupOf(AttributeValueCodec.read(p));
        } catch (IOException | RuntimeException malformed) {
            return groups.get(0);
        }
    }

    /**
     * The group of a PartiQL statement of a batch or transaction ({@code entry}: its {@code Statement} and {@code
     * Parameters}, as the request gave them): its partition key's range's, by {@link #statementKey}; the first group's
     * for one that binds none, or does not parse, which refuses it as a single node would (each statement of a batch
     * or transaction names one item).
     */
    UUID groupOfStatement(JsonNode entry) {
        Statement s = statement(entry);
        AttributeValue value = s == null ? null : statementKey(s.parsed(), key);
        return value == null ? groups.get(0) : groupOf(value);
    }

    /**
     * The groups of the keys in a share of a batch or transaction ({@code root}: its body) sent as {@code target},
     * each key's range's as the node that cut the request finds it ({@link BatchSpread#split}, {@link
     * TransactSpread#split}, {@link TransactWriteSpread#split}, {@link StatementSpread#split}), from the members its
     * group's server reads for that operation alone: a BatchWriteItem's (or its check's) puts and deletes
     * ({@link BatchSpread#writeKeyOf}), a BatchGetItem's {@code Keys}, a read transaction's (or its hold's) Gets, a
     * write transaction's (or its prepare's) actions ({@link TransactWriteSpread#keyOf}), the statements of a
     * BatchExecuteStatement or ExecuteTransaction (or its hold or prepare). Empty for another target.
     */
    java.util.Set<UUID> groupsOfShare(String target, JsonNode root) {
        java.util.Set<UUID> out = new java.util.HashSet<>();
        switch (target.substring(target.indexOf('.') + 1)) {
            case "BatchWriteItem", "CheckBatchWriteItem" -> {
                for (JsonNode entry : root.path("RequestItems")) {
                    for (JsonNode one : entry.isArray() ? entry : List.<JsonNode>of()) {
                        out.add(groupOfEntry(BatchSpread.writeKeyOf(one)));
                    }
                }
            }
            case "BatchGetItem" -> {
                for (JsonNode entry : root.path("RequestItems")) {
                    for (JsonNode one : entry.path("Keys")) {
                        out.add(groupOfEntry(one));
                    }
                }
            }
            case "TransactGetItems", "HoldTransactGetItems" -> {
                for (JsonNode item : root.path("TransactItems")) {
                    out.add(groupOfEntry(item.path("Get").get("Key")));
                }
            }
            case "TransactWriteItems", "PrepareTransactWriteItems" -> {
                for (JsonNode item : root.path("TransactItems")) {
                    out.add(groupOfEntry(TransactWriteSpread.keyOf(item)));
                }
            }
            case "BatchExecuteStatement" -> {
                for (JsonNode statement : root.path("Statements")) {
                    out.add(groupOfStatement(statement));
                }
            }
            case "ExecuteTransaction", "HoldExecuteTransaction", "PrepareExecuteTransaction" -> {
                for (JsonNode statement : root.path("TransactStatements")) {
                    out.add(groupOfStatement(statement));
                }
            }
            default -> {}
        }
        return out;
    }

    /** A statement as a request gives it, parsed. */
    record Statement(Partiql.Statement parsed) {
        /**
         * Whether it reads every range of its table when it binds no partition key: a SELECT without ORDER BY (a
         * single node scans the table; with ORDER BY, or an EXISTS, it refuses the statement), or one of an index (a
         * global secondary index's rows are in every group, whether it scans it or reads it by its key, in order).
         */
        boolean scans() {
            return parsed instanceof Partiql.Select s
                    && (s.orderBy() == null || s.orderBy().isEmpty() || s.index() != null);
        }
    }

    /**
     * The PartiQL statement of {@code entry} (an ExecuteStatement's body, or one statement of a batch or transaction:
     * its {@code Statement} and {@code Parameters}), parsed with its parameters; null for one that does not parse.
     */
    static Statement statement(JsonNode entry) {
        try {
            com.fasterxml.jackson.databind.node.ObjectNode only = JsonNodeFactory.instance.objectNode();
            only.set("Statement", entry.get("Statement"));
            if (entry.get("Parameters") != null) {
                only.set("Parameters", entry.get("Parameters"));
            }
            ExecuteStatementInput in =
                    DynamoJson.decode(DynamoJson.mapper().writeValueAsBytes(only), ExecuteStatementInput.class);
            return new Statement(PartiqlParser.parse(in.statement(), in.parameters()));
        } catch (IOException | RuntimeException malformed) {
            return null;
        }
    }

    /**
     * The partition key (attribute {@code key}) statement {@code s} names: an INSERT's in its item, an UPDATE's,
     * DELETE's or SELECT's where its WHERE binds it by equality (among the conditions it joins by AND); null for one
     * that binds none, or several values of it (an IN list, an OR).
     */
    static AttributeValue statementKey(Partiql.Statement s, String key) {
        if (s instanceof Partiql.Insert i) {
            return i.item().values().get(key);
        }
        Partiql.Expr where = s instanceof Partiql.Update u
                ? u.where()
                : s instanceof Partiql.Delete d
                        ? d.where()
                        : s instanceof Partiql.Select select
                                ? select.where()
                                : s instanceof Partiql.Exists e ? e.select().where() : null;
        return equality(where, key);
    }

    /** The value {@code where} binds attribute {@code key} to by equality, itself or in a conjunct; or null. */
    private static AttributeValue equality(Partiql.Expr where, String key) {
        if (where instanceof Partiql.Logic l && l.and()) {
            AttributeValue left = equality(l.left(), key);
            return left != null ? left : equality(l.right(), key);
        }
        if (where instanceof Partiql.Compare c && c.op().equals("=")) {
            if (c.left() instanceof Partiql.Path p
                    && p.simple()
                    && p.head().equals(key)
                    && c.right() instanceof Partiql.Value v) {
                return v.value();
            }
            if (c.right() instanceof Partiql.Path p
                    && p.simple()
                    && p.head().equals(key)
                    && c.left() instanceof Partiql.Value v) {
                return v.value();
            }
        }
        return null;
    }

    /**
     * The hash range group {@code id} holds: from its range's start to the next one's, the last up to the greatest
     * hash. Each range is a group of its own.
     */
    io.partita.storage.table.HashRange rangeOf(UUID id) {
        int i = groups.indexOf(id);
        if (i < 0 && moving != null && moving.group().equals(id)) {
            // The group a move makes, before the ranges name it: from the move's first hash to the end of its source's,
            // receiving: it serves no request of a user until the move's copy is over.
            return new io.partita.storage.table.HashRange(
                    moving.from(), rangeOf(moving.source()).last(), null, true);
        }
        if (i < 0) {
            throw new IllegalArgumentException("group " + id + " holds no range of " + groups);
        }
        return new io.partita.storage.table.HashRange(starts[i], i + 1 < starts.length ? starts[i + 1] - 1 : -1L);
    }

    /** Whether group {@code id} holds one of the ranges, or is the group a move under way makes. */
    boolean has(UUID id) {
        return groups.contains(id) || (moving != null && moving.group().equals(id));
    }

    /**
     * These ranges once the move under way has switched: its hashes a range of their own, in its new group, and the
     * move {@code switched}.
     */
    TableRanges switched() {
        if (moving == null || moving.switched()) {
            throw new IllegalStateException("no move to switch in " + this);
        }
        int at = groups.indexOf(moving.source()) + 1;
        long[] next = new long[starts.length + 1];
        System.arraycopy(starts, 0, next, 0, at);
        next[at] = moving.from();
        System.arraycopy(starts, at, next, at + 1, starts.length - at);
        List<UUID> nextGroups = new ArrayList<>(groups);
        nextGroups.add(at, moving.group());
        return new TableRanges(
                key, next, nextGroups, live, new Moving(moving.from(), moving.group(), moving.source(), true));
    }

    /**
     * Where a split of range {@code i} cuts it: the first hash of its upper half (a range of one hash has none: -1 is
     * never a range's first hash but the first's, 0, so the caller refuses one whose first and last are equal).
     */
    long splitPoint(int i) {
        io.partita.storage.table.HashRange range = rangeOf(groups.get(i));
        return range.first() + ((range.last() - range.first()) >>> 1) + 1;
    }

    /** These ranges without a move under way. */
    TableRanges withoutMove() {
        return new TableRanges(key, starts, groups, live, null);
    }

    /** Record {@code record} (a table's in the members' group) with these ranges and move, the rest as it was. */
    byte[] into(JsonNode record) throws IOException {
        com.fasterxml.jackson.databind.node.ObjectNode out =
                ((com.fasterxml.jackson.databind.node.ObjectNode) record).deepCopy();
        out.set("ranges", toJson());
        if (moving == null) {
            out.remove("moving");
        } else {
            out.set("moving", moving.toJson());
        }
        return DynamoJson.mapper().writeValueAsBytes(out);
    }

    /** The ranges in a table's record of the members' group: {@code [{"from": <hash>, "group": <id>}, ...]}. */
    ArrayNode toJson() {
        ArrayNode out = JsonNodeFactory.instance.arrayNode();
        for (int i = 0; i < starts.length; i++) {
            out.addObject()
                    .put("from", Long.toUnsignedString(starts[i]))
                    .put("group", groups.get(i).toString());
        }
        return out;
    }

    /** The ranges of a table's record {@code record}, or null for a table kept whole, in one group. */
    static TableRanges of(JsonNode record) {
        JsonNode ranges = record.get("ranges");
        JsonNode key = record.get("key");
        if (ranges == null || !ranges.isArray() || key == null || !key.isTextual()) {
            return null;
        }
        long[] starts = new long[ranges.size()];
        List<UUID> groups = new ArrayList<>(ranges.size());
        for (int i = 0; i < starts.length; i++) {
            starts[i] = Long.parseUnsignedLong(ranges.get(i).get("from").asText());
            groups.add(UUID.fromString(ranges.get(i).get("group").asText()));
        }
        JsonNode m = record.get("moving");
        Moving moving = m == null || !m.isObject()
                ? null
                : new Moving(
                        Long.parseUnsignedLong(m.get("from").asText()),
                        UUID.fromString(m.get("group").asText()),
                        UUID.fromString(m.get("source").asText()),
                        m.path("switched").asBoolean(false));
        return new TableRanges(key.asText(), starts, groups, record.path("live").asBoolean(true), moving);
    }

    /**
     * The partition key a request of {@code operation} names, from its JSON {@code body}: GetItem's, UpdateItem's and
     * DeleteItem's in its {@code Key}, PutItem's in its {@code Item}, a Query's in its key condition (its equality on
     * the partition key, by expression or by {@code KeyConditions}); null when it names none, or not as it should (the
     * table's first group then answers the request, and its error, as a single node would).
     */
    static AttributeValue partitionKey(String operation, byte[] body, String key, ExpressionCache cache) {
        try {
            return switch (operation) {
                case "GetItem", "UpdateItem", "DeleteItem" -> member(body, "Key", key);
                case "PutItem" -> member(body, "Item", key);
                case "Query" -> queried(body, key, cache);
                default -> null;
            };
        } catch (IOException | RuntimeException malformed) {
            return null;
        }
    }

    /** The partition key of a Scan's {@code ExclusiveStartKey} in its JSON {@code body}, or null. */
    static AttributeValue startKey(byte[] body, String key) {
        try {
            return member(body, "ExclusiveStartKey", key);
        } catch (IOException | RuntimeException malformed) {
            return null;
        }
    }

    /** The value of member {@code key} of the body's top-level map {@code field}, or null. */
    private static AttributeValue member(byte[] body, String field, String key) throws IOException {
        try (JsonParser p = DynamoJson.factory().createParser(body)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            AttributeValue found = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                if (!name.equals(field) || value != JsonToken.START_OBJECT) {
                    p.skipChildren();
                    continue;
                }
                found = null; // a field given twice: the last, as the server's parser takes it
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String attribute = p.currentName();
                    p.nextToken();
                    if (attribute.equals(key)) {
                        found = AttributeValueCodec.read(p);
                    } else {
                        p.skipChildren();
                    }
                }
            }
            return found;
        }
    }

    /** The partition key a Query's key condition gives by equality, or null. */
    private static AttributeValue queried(byte[] body, String key, ExpressionCache cache) {
        QueryInput in = DynamoJson.decode(body, QueryInput.class);
        if (in.keyConditionExpression() != null) {
            ExpressionResolver resolver =
                    new ExpressionResolver(in.expressionAttributeNames(), in.expressionAttributeValues());
            return KeyConditionPlanner.equalityOf(
                    resolver.resolve(
                            cache.condition(in.keyConditionExpression(), "KeyConditionExpression"),
                            "KeyConditionExpression"),
                    key);
        }
        LegacyCondition c =
                in.keyConditions() == null ? null : in.keyConditions().get(key);
        return c != null
                        && "EQ".equals(c.comparisonOperator())
                        && c.attributeValueList() != null
                        && c.attributeValueList().size() == 1
                ? c.attributeValueList().get(0)
                : null;
    }
}
