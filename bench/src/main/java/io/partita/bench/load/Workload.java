package io.partita.bench.load;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The table shape and the request bodies of each operation, written straight into a reusable byte buffer: no JSON
 * library and no per-request strings on the hot path.
 *
 * <p>Items: hash-only tables have {@code pk = "k<i>"}; with a range key, item {@code i} lives in partition
 * {@code pk = "p<i / perPartition>"} with {@code sk = <i % perPartition>} (a number), so Query reads up to
 * {@code perPartition} items of one partition. Every item also has {@code v}, a string padding it to the requested
 * size as DynamoDB counts it (attribute names plus values).
 */
public final class Workload {
    /** An operation of the workload; {@code target} is the X-Amz-Target suffix. */
    public enum Op {
        GET("GetItem"),
        /** GetItem with ConsistentRead: on a cluster, what the leader's read barrier costs. */
        CGET("GetItem"),
        PUT("PutItem"),
        UPDATE("UpdateItem"),
        QUERY10("Query"),
        QUERY100("Query"),
        SCAN("Scan"),
        BATCHGET("BatchGetItem"),
        /** BatchWriteItem of 25 puts of consecutive items: one commit on a single node, one Raft entry in a group. */
        BATCHWRITE("BatchWriteItem"),
        /** TransactWriteItems of 2, 10 and 100 puts of consecutive items, each with a ClientRequestToken. */
        TX2("TransactWriteItems"),
        TX10("TransactWriteItems"),
        TX100("TransactWriteItems"),
        /** PartiQL's SELECT by the whole key (planned as a GetItem): what parsing and planning add to GetItem. */
        SELECT("ExecuteStatement");

        final String target;

        Op(String target) {
            this.target = target;
        }
    }

    /** Shares of the {@code mix} workload, in percent: reads dominate, as in most applications. */
    private static final Op[] MIX = mix();

    static final int BATCH_GET_KEYS = 25;
    static final int BATCH_WRITE_ITEMS = 25;
    static final int SCAN_LIMIT = 100;

    private final String table;
    private final long items;
    private final int itemSize;
    private final boolean rangeKey;
    private final int perPartition;
    private final String name; // workload name: one op or "mix"
    private final Op single;
    private final byte[] padding;
    /** GSIs of the table: {@code by-g<i>} keyed by attribute {@code g<i>}, KEYS_ONLY; every item has each. */
    private int gsis;
    /** The table's stream view type, or null for none. */
    private String stream;

    public Workload(
            String table, long items, int itemSize, boolean rangeKey, int perPartition, String name, long seed) {
        this.table = table;
        this.items = items;
        this.itemSize = itemSize;
        this.rangeKey = rangeKey;
        this.perPartition = perPartition;
        this.name = name;
        this.single = name.equals("mix") ? null : Op.valueOf(name.toUpperCase(java.util.Locale.ROOT));
        // The widest key decides the padding, so every item is at least itemSize bytes and at most a few over.
        int keyBytes = keyBytes(items - 1);
        int pad = Math.max(1, itemSize - keyBytes - 1);
        this.padding = new byte[pad];
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int i = 0; i < pad; i++) padding[i] = (byte) ('a' + rnd.nextInt(26));
    }

    /** Gives the table {@code n} GSIs: items carry {@code g0…g<n-1>}, which each put changes. */
    public Workload gsis(int n) {
        this.gsis = n;
        return this;
    }

    /** Gives the table a stream of {@code viewType} (null: none). */
    public Workload stream(String viewType) {
        this.stream = viewType;
        return this;
    }

    public boolean rangeKey() {
        return rangeKey;
    }

    public long items() {
        return items;
    }

    public int itemSize() {
        return itemSize;
    }

    public String table() {
        return table;
    }

    public String name() {
        return name;
    }

    /** The operations this workload issues. */
    public Op[] ops() {
        return single != null
                ? new Op[] {single}
                : Arrays.stream(MIX).distinct().toArray(Op[]::new);
    }

    public Op pick(SplittableRandom rnd) {
        return single != null ? single : MIX[rnd.nextInt(MIX.length)];
    }

    private static Op[] mix() {
        Op[] mix = new Op[100];
        int i = 0;
        i = fill(mix, i, Op.GET, 60);
        i = fill(mix, i, Op.PUT, 20);
        i = fill(mix, i, Op.UPDATE, 10);
        i = fill(mix, i, Op.QUERY10, 5);
        fill(mix, i, Op.BATCHGET, 5);
        return mix;
    }

    private static int fill(Op[] a, int from, Op op, int n) {
        Arrays.fill(a, from, from + n, op);
        return from + n;
    }

    private int keyBytes(long i) {
        if (!rangeKey) return 2 + 1 + digits(i);
        // DynamoDB sizes a number at about one byte per two significant digits, plus one.
        return 2 + 1 + digits(i / perPartition) + 2 + (digits(perPartition - 1) + 1) / 2 + 1;
    }

    private static int digits(long v) {
        return Long.toString(v).length();
    }

    private long partitions() {
        return Math.max(1, (items + perPartition - 1) / perPartition);
    }

    /** Writes the body of {@code op} for a random key into {@code out} (which is cleared first). */
    public void body(Op op, SplittableRandom rnd, Bytes out) {
        out.clear();
        switch (op) {
            case GET -> {
                out.ascii("{\"TableName\":\"").ascii(table).ascii("\",\"Key\":");
                key(out, rnd.nextLong(items));
                out.ascii("}");
            }
            case CGET -> {
                out.ascii("{\"TableName\":\"").ascii(table).ascii("\",\"ConsistentRead\":true,\"Key\":");
                key(out, rnd.nextLong(items));
                out.ascii("}");
            }
            case PUT -> {
                out.ascii("{\"TableName\":\"").ascii(table).ascii("\",\"Item\":");
                item(out, rnd.nextLong(items), rnd);
                out.ascii("}");
            }
            case UPDATE -> {
                out.ascii("{\"TableName\":\"").ascii(table).ascii("\",\"Key\":");
                key(out, rnd.nextLong(items));
                out.ascii(
                        ",\"UpdateExpression\":\"ADD n :one\",\"ExpressionAttributeValues\":{\":one\":{\"N\":\"1\"}}}");
            }
            case QUERY10, QUERY100 -> {
                long p = rnd.nextLong(partitions());
                out.ascii("{\"TableName\":\"")
                        .ascii(table)
                        .ascii(
                                "\",\"KeyConditionExpression\":\"pk = :p\",\"ExpressionAttributeValues\":{\":p\":{\"S\":\"")
                        .ascii(rangeKey ? "p" : "k")
                        .num(p)
                        .ascii("\"}},\"Limit\":")
                        .num(op == Op.QUERY10 ? 10 : 100)
                        .ascii("}");
            }
            case SCAN -> {
                out.ascii("{\"TableName\":\"")
                        .ascii(table)
                        .ascii("\",\"Limit\":")
                        .num(SCAN_LIMIT);
                out.ascii(",\"ExclusiveStartKey\":");
                key(out, rnd.nextLong(items));
                out.ascii("}");
            }
            case SELECT -> {
                long i = rnd.nextLong(items);
                out.ascii("{\"Statement\":\"SELECT * FROM \\\"").ascii(table);
                if (rangeKey) {
                    out.ascii("\\\" WHERE pk = ? AND sk = ?\",\"Parameters\":[{\"S\":\"p")
                            .num(i / perPartition)
                            .ascii("\"},{\"N\":\"")
                            .num(i % perPartition)
                            .ascii("\"}]}");
                } else {
                    out.ascii("\\\" WHERE pk = ?\",\"Parameters\":[{\"S\":\"k")
                            .num(i)
                            .ascii("\"}]}");
                }
            }
            case TX2, TX10, TX100 -> {
                int n = (int) Math.min(op == Op.TX2 ? 2 : op == Op.TX10 ? 10 : 100, items);
                long start = rnd.nextLong(items);
                // A token of its own, as the AWS SDKs give every transaction (each then keeps a record in the store).
                out.ascii("{\"ClientRequestToken\":\"")
                        .ascii(Long.toHexString(rnd.nextLong()))
                        .ascii(Long.toHexString(rnd.nextLong()))
                        .ascii("\",\"TransactItems\":[");
                for (int k = 0; k < n; k++) {
                    if (k > 0) out.ascii(",");
                    out.ascii("{\"Put\":{\"TableName\":\"").ascii(table).ascii("\",\"Item\":");
                    item(out, (start + k) % items, rnd);
                    out.ascii("}}");
                }
                out.ascii("]}");
            }
            case BATCHWRITE -> {
                int n = (int) Math.min(BATCH_WRITE_ITEMS, items);
                long start = rnd.nextLong(items);
                out.ascii("{\"RequestItems\":{\"").ascii(table).ascii("\":[");
                for (int k = 0; k < n; k++) {
                    if (k > 0) out.ascii(",");
                    out.ascii("{\"PutRequest\":{\"Item\":");
                    item(out, (start + k) % items, rnd); // consecutive: distinct keys, as BatchWriteItem requires
                    out.ascii("}}");
                }
                out.ascii("]}}");
            }
            case BATCHGET -> {
                out.ascii("{\"RequestItems\":{\"").ascii(table).ascii("\":{\"Keys\":[");
                int n = (int) Math.min(BATCH_GET_KEYS, items);
                long start = rnd.nextLong(items);
                for (int k = 0; k < n; k++) {
                    if (k > 0) out.ascii(",");
                    key(out, (start + k) % items); // consecutive: distinct keys, as BatchGetItem requires
                }
                out.ascii("]}}}");
            }
        }
    }

    /** A BatchWriteItem body putting items {@code from} (inclusive) to {@code to} (exclusive). */
    public void batchWrite(long from, long to, Bytes out) {
        out.clear();
        out.ascii("{\"RequestItems\":{\"").ascii(table).ascii("\":[");
        for (long i = from; i < to; i++) {
            if (i > from) out.ascii(",");
            out.ascii("{\"PutRequest\":{\"Item\":");
            item(out, i, null);
            out.ascii("}}");
        }
        out.ascii("]}}");
    }

    public String createTableBody() {
        return createTableBody(0, 0);
    }

    /** CreateTable for this workload: on demand, or provisioned when {@code rcu} and {@code wcu} are positive. */
    public String createTableBody(long rcu, long wcu) {
        String attrs = "{\"AttributeName\":\"pk\",\"AttributeType\":\"S\"}"
                + (rangeKey ? ",{\"AttributeName\":\"sk\",\"AttributeType\":\"N\"}" : "");
        String schema = "{\"AttributeName\":\"pk\",\"KeyType\":\"HASH\"}"
                + (rangeKey ? ",{\"AttributeName\":\"sk\",\"KeyType\":\"RANGE\"}" : "");
        StringBuilder indexes = new StringBuilder();
        for (int g = 0; g < gsis; g++) {
            attrs += ",{\"AttributeName\":\"g" + g + "\",\"AttributeType\":\"S\"}";
            indexes.append(g == 0 ? "\"GlobalSecondaryIndexes\":[" : ",")
                    .append("{\"IndexName\":\"by-g")
                    .append(g)
                    .append("\",\"KeySchema\":[{\"AttributeName\":\"g")
                    .append(g)
                    .append("\",\"KeyType\":\"HASH\"}],\"Projection\":{\"ProjectionType\":\"KEYS_ONLY\"}")
                    .append(
                            rcu > 0 && wcu > 0
                                    ? ",\"ProvisionedThroughput\":{\"ReadCapacityUnits\":" + rcu
                                            + ",\"WriteCapacityUnits\":" + wcu + "}"
                                    : "")
                    .append("}");
        }
        if (gsis > 0) {
            indexes.append("],");
        }
        return "{\"TableName\":\"" + table + "\",\"AttributeDefinitions\":[" + attrs + "],\"KeySchema\":[" + schema
                + "]," + indexes
                + (stream == null
                        ? ""
                        : "\"StreamSpecification\":{\"StreamEnabled\":true,\"StreamViewType\":\"" + stream + "\"},")
                + (rcu > 0 && wcu > 0
                        ? "\"BillingMode\":\"PROVISIONED\",\"ProvisionedThroughput\":{\"ReadCapacityUnits\":" + rcu
                                + ",\"WriteCapacityUnits\":" + wcu + "}}"
                        : "\"BillingMode\":\"PAY_PER_REQUEST\"}");
    }

    private void key(Bytes out, long i) {
        out.ascii("{");
        keyAttributes(out, i);
        out.ascii("}");
    }

    private void keyAttributes(Bytes out, long i) {
        if (rangeKey) {
            out.ascii("\"pk\":{\"S\":\"p")
                    .num(i / perPartition)
                    .ascii("\"},\"sk\":{\"N\":\"")
                    .num(i % perPartition)
                    .ascii("\"}");
        } else {
            out.ascii("\"pk\":{\"S\":\"k").num(i).ascii("\"}");
        }
    }

    /**
     * An item of the requested size. With {@code vary}, the first characters of its padding are random, so that a put
     * changes the item it overwrites, as an application's writes do: a table that records its changes (for an index or
     * a stream) commits nothing for a put that stores the item it found.
     */
    private void item(Bytes out, long i, SplittableRandom vary) {
        out.ascii("{");
        keyAttributes(out, i);
        for (int g = 0; g < gsis; g++) {
            // A put moves the item in every index, as a changed status or owner would.
            out.ascii(",\"g")
                    .num(g)
                    .ascii("\":{\"S\":\"g")
                    .num(vary == null ? i % 1000 : vary.nextInt(1000))
                    .ascii("\"}");
        }
        out.ascii(",\"v\":{\"S\":\"");
        int at = out.length();
        out.bytes(padding);
        if (vary != null) {
            long r = vary.nextLong();
            for (int k = 0; k < Math.min(16, padding.length); k++) {
                out.array()[at + k] = (byte) ('a' + ((r >>> (4 * k)) & 0xF));
            }
        }
        out.ascii("\"}}");
    }

    /** A growable byte array, reused per connection. */
    public static final class Bytes {
        private byte[] buf = new byte[2048];
        private int len;

        public void clear() {
            len = 0;
        }

        public byte[] array() {
            return buf;
        }

        public int length() {
            return len;
        }

        private void ensure(int extra) {
            if (len + extra > buf.length) buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + extra));
        }

        public Bytes ascii(String s) {
            int n = s.length();
            ensure(n);
            for (int i = 0; i < n; i++) buf[len++] = (byte) s.charAt(i);
            return this;
        }

        public Bytes bytes(byte[] b) {
            ensure(b.length);
            System.arraycopy(b, 0, buf, len, b.length);
            len += b.length;
            return this;
        }

        public Bytes num(long v) {
            if (v == 0) {
                ensure(1);
                buf[len++] = '0';
                return this;
            }
            if (v < 0) return ascii(Long.toString(v));
            int d = 0;
            for (long t = v; t > 0; t /= 10) d++;
            ensure(d);
            for (int p = len + d - 1; p >= len; p--, v /= 10) buf[p] = (byte) ('0' + v % 10);
            len += d;
            return this;
        }

        @Override
        public String toString() {
            return new String(buf, 0, len, StandardCharsets.UTF_8);
        }
    }
}
