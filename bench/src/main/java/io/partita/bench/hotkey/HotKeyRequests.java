package io.partita.bench.hotkey;

import io.partita.bench.load.Workload.Bytes;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The table shape and the request bodies of the scenario, written into a reusable buffer without a JSON library.
 *
 * <pre>
 * hash key tenant (S)   range key id (S)        v (S)
 * "tenant-hot"          16 hex digits           padding to --item-kb KB as DynamoDB counts it
 * "tenant-0000" …       (random for PutItem, 0…ids-1 for the preloaded items GetItem reads)
 * </pre>
 *
 * An item's size is its attribute names plus values; the padding makes every item a few bytes under
 * {@code itemKb × 1024}, so a PutItem costs exactly {@code itemKb} WCU and a strongly consistent GetItem
 * {@code ceil(itemKb / 4)} RCU.
 */
final class HotKeyRequests {
    static final String HOT_TENANT = "tenant-hot";
    /** Bytes left under the KB boundary, so rounding can never tip an item into one more unit. */
    private static final int SLACK = 8;

    private static final int ID_HEX_DIGITS = 16;
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    private final String table;
    private final Op op;
    private final String[] coldTenants;
    private final int idsPerTenant;
    private final byte[] padding;
    private final int itemBytes;

    HotKeyRequests(String table, Op op, int itemKb, int tenants, int idsPerTenant, long seed) {
        if (itemKb < 1) throw new IllegalArgumentException("--item-kb must be at least 1");
        if (tenants < 1) throw new IllegalArgumentException("--tenants must be at least 1");
        this.table = table;
        this.op = op;
        this.idsPerTenant = idsPerTenant;
        this.coldTenants = new String[tenants];
        int widestTenant = HOT_TENANT.length();
        for (int i = 0; i < tenants; i++) {
            coldTenants[i] = String.format(Locale.ROOT, "tenant-%04d", i);
            widestTenant = Math.max(widestTenant, coldTenants[i].length());
        }
        int keyBytes = "tenant".length() + widestTenant + "id".length() + ID_HEX_DIGITS + "v".length();
        this.itemBytes = itemKb * 1024 - SLACK;
        this.padding = new byte[itemBytes - keyBytes];
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int i = 0; i < padding.length; i++) padding[i] = (byte) ('a' + rnd.nextInt(26));
    }

    /** The size of the largest item as DynamoDB counts it (a hot-tenant item is a byte smaller). */
    int itemBytes() {
        return itemBytes;
    }

    int unitsPerRequest() {
        return op.unitsPerRequest(itemBytes);
    }

    String target() {
        return op.target;
    }

    /**
     * Whether request number {@code i} (from 0) of a step goes to the hot key. Spreads exactly {@code share} percent
     * of every 100 consecutive requests evenly, so a short step still has the share it claims.
     */
    static boolean isHot(long i, double sharePercent) {
        long basisPoints = Math.round(sharePercent * 100); // integers, so 100 requests at 29 % are exactly 29 hot
        return (i + 1) * basisPoints / 10_000 > i * basisPoints / 10_000;
    }

    /** Writes one request body: for the hot tenant or a random cold one, with a random id. */
    void request(boolean hot, SplittableRandom rnd, Bytes out) {
        out.clear();
        String tenant = hot ? HOT_TENANT : coldTenants[rnd.nextInt(coldTenants.length)];
        if (op == Op.WRITE) {
            out.ascii("{\"TableName\":\"").ascii(table).ascii("\",\"Item\":");
            item(tenant, rnd.nextLong(), out);
            out.ascii("}");
        } else {
            out.ascii("{\"TableName\":\"").ascii(table).ascii("\",\"Key\":{");
            key(tenant, rnd.nextInt(idsPerTenant), out);
            out.ascii("},\"ConsistentRead\":true}");
        }
    }

    /** Items to preload for reads: {@code idsPerTenant} for the hot tenant and for each cold one. */
    long preloadItems() {
        return (long) (coldTenants.length + 1) * idsPerTenant;
    }

    /** A BatchWriteItem body putting preloaded items {@code from} (inclusive) to {@code to} (exclusive). */
    void batchWrite(long from, long to, Bytes out) {
        out.clear();
        out.ascii("{\"RequestItems\":{\"").ascii(table).ascii("\":[");
        for (long k = from; k < to; k++) {
            if (k > from) out.ascii(",");
            int t = (int) (k / idsPerTenant);
            out.ascii("{\"PutRequest\":{\"Item\":");
            item(t == coldTenants.length ? HOT_TENANT : coldTenants[t], k % idsPerTenant, out);
            out.ascii("}}");
        }
        out.ascii("]}}");
    }

    static String createTableBody(String table, long rcu, long wcu) {
        return "{\"TableName\":\"" + table + "\",\"AttributeDefinitions\":["
                + "{\"AttributeName\":\"tenant\",\"AttributeType\":\"S\"},"
                + "{\"AttributeName\":\"id\",\"AttributeType\":\"S\"}],"
                + "\"KeySchema\":[{\"AttributeName\":\"tenant\",\"KeyType\":\"HASH\"},"
                + "{\"AttributeName\":\"id\",\"KeyType\":\"RANGE\"}],"
                + "\"BillingMode\":\"PROVISIONED\",\"ProvisionedThroughput\":{\"ReadCapacityUnits\":" + rcu
                + ",\"WriteCapacityUnits\":" + wcu + "}}";
    }

    private void item(String tenant, long id, Bytes out) {
        out.ascii("{");
        key(tenant, id, out);
        out.ascii(",\"v\":{\"S\":\"").bytes(padding).ascii("\"}}");
    }

    private static void key(String tenant, long id, Bytes out) {
        byte[] hex = new byte[ID_HEX_DIGITS];
        for (int d = 0; d < ID_HEX_DIGITS; d++) hex[d] = HEX[(int) (id >>> (4 * (ID_HEX_DIGITS - 1 - d))) & 0xf];
        out.ascii("\"tenant\":{\"S\":\"").ascii(tenant).ascii("\"},\"id\":{\"S\":\"");
        out.bytes(hex).ascii("\"}");
    }
}
