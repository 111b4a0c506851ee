package io.partita.bench.hotkey;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.partita.bench.load.Workload.Bytes;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class HotKeyRequestsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** DynamoDB's size of an item of string attributes: names plus UTF-8 values. */
    private static long size(JsonNode item) {
        long size = 0;
        for (Map.Entry<String, JsonNode> e : item.properties()) {
            size += e.getKey().getBytes(StandardCharsets.UTF_8).length;
            size += e.getValue().path("S").asText().getBytes(StandardCharsets.UTF_8).length;
        }
        return size;
    }

    @ParameterizedTest
    @ValueSource(doubles = {0, 10, 25, 29, 33.3, 50, 70, 99, 100})
    void theHotShareIsExactOverEveryHundredRequests(double share) {
        for (long offset : new long[] {0, 100, 12_300}) {
            long hot = 0;
            for (long i = offset; i < offset + 1000; i++) if (HotKeyRequests.isHot(i, share)) hot++;
            assertThat(hot).isEqualTo(Math.round(share * 10));
        }
    }

    @Test
    void aPutItemIsJustUnderItsKilobytesSoItCostsExactlyThatManyWriteUnits() throws Exception {
        HotKeyRequests r = new HotKeyRequests("hotkey-sim", Op.WRITE, 4, 200, 10, 1);
        Bytes body = new Bytes();
        SplittableRandom rnd = new SplittableRandom(7);
        Set<String> ids = new HashSet<>();
        for (boolean hot : new boolean[] {true, false, false}) {
            r.request(hot, rnd, body);
            JsonNode req = JSON.readTree(body.toString());
            JsonNode item = req.path("Item");
            assertThat(req.path("TableName").asText()).isEqualTo("hotkey-sim");
            assertThat(size(item)).isBetween(4096L - 16, 4096L);
            assertThat(item.path("tenant").path("S").asText()).matches(hot ? "tenant-hot" : "tenant-0\\d{3}");
            assertThat(item.path("id").path("S").asText()).matches("[0-9a-f]{16}");
            ids.add(item.path("id").path("S").asText());
        }
        assertThat(ids).hasSize(3);
        assertThat(r.itemBytes()).isLessThanOrEqualTo(4096);
        assertThat(r.unitsPerRequest()).isEqualTo(4);
        assertThat(r.target()).isEqualTo("PutItem");
    }

    @Test
    void aGetItemIsStronglyConsistentAndAsksForAPreloadedId() throws Exception {
        HotKeyRequests r = new HotKeyRequests("t", Op.READ, 4, 3, 5, 1);
        Bytes body = new Bytes();
        r.request(false, new SplittableRandom(3), body);
        JsonNode req = JSON.readTree(body.toString());

        assertThat(req.path("ConsistentRead").asBoolean()).isTrue();
        assertThat(Long.parseLong(req.path("Key").path("id").path("S").asText(), 16))
                .isBetween(0L, 4L);
        assertThat(r.unitsPerRequest()).isEqualTo(1); // 4 KB strongly consistent: one RCU
        assertThat(new HotKeyRequests("t", Op.READ, 12, 3, 5, 1).unitsPerRequest())
                .isEqualTo(3);
        assertThat(r.target()).isEqualTo("GetItem");
    }

    @Test
    void thePreloadCoversEveryTenantIncludingTheHotOne() throws Exception {
        HotKeyRequests r = new HotKeyRequests("t", Op.READ, 1, 3, 5, 1);
        assertThat(r.preloadItems()).isEqualTo(20);
        Set<String> keys = new HashSet<>();
        Bytes body = new Bytes();
        for (long from = 0; from < 20; from += 7) {
            r.batchWrite(from, Math.min(20, from + 7), body);
            for (JsonNode put :
                    JSON.readTree(body.toString()).path("RequestItems").path("t")) {
                JsonNode item = put.path("PutRequest").path("Item");
                assertThat(size(item)).isBetween(1024L - 16, 1024L);
                keys.add(item.path("tenant").path("S").asText() + "/"
                        + item.path("id").path("S").asText());
            }
        }
        assertThat(keys).hasSize(20).contains("tenant-hot/0000000000000004", "tenant-0000/0000000000000000");
    }

    @Test
    void theTableIsProvisionedWithTenantAndIdKeys() throws Exception {
        JsonNode t = JSON.readTree(HotKeyRequests.createTableBody("hotkey-sim", 6000, 2000));

        assertThat(t.path("BillingMode").asText()).isEqualTo("PROVISIONED");
        assertThat(t.path("ProvisionedThroughput").path("ReadCapacityUnits").asLong())
                .isEqualTo(6000);
        assertThat(t.path("ProvisionedThroughput").path("WriteCapacityUnits").asLong())
                .isEqualTo(2000);
        assertThat(t.path("KeySchema").get(0).path("AttributeName").asText()).isEqualTo("tenant");
        assertThat(t.path("KeySchema").get(1).path("KeyType").asText()).isEqualTo("RANGE");
    }
}
