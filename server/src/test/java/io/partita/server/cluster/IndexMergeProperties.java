package io.partita.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.partita.protocol.json.DynamoJson;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * A Query of a global secondary index over a table's groups ({@link RangeSpread#queryIndex}), each group a page reader
 * of its own rows as a store reads them (in the index's order from the start key, up to the Limit or its byte budget,
 * then filtered): paged to its end, the merged pages give every row exactly once, in the index's order (either way),
 * each page's Count its matched rows, and no page reads more than the Limit or past a megabyte and one row.
 */
class IndexMergeProperties {
    private static final ObjectMapper JSON = DynamoJson.mapper();

    /** A row of a group's index: where it sorts, its size, and whether the filter matches it. */
    record Row(int position, long bytes, boolean matched) {
        String key() {
            return Base64.getEncoder().encodeToString(encoded());
        }

        /** Four bytes, big-endian: positions above 2^31 sort after the others unsigned, as index keys do. */
        byte[] encoded() {
            return new byte[] {
                (byte) (position >>> 24), (byte) (position >>> 16), (byte) (position >>> 8), (byte) position
            };
        }
    }

    /** Groups of rows whose positions are distinct across them all, as each item's row is in its own group alone. */
    @Provide
    Arbitrary<List<List<Row>>> groups() {
        Arbitrary<Row> row = Combinators.combine(
                        Arbitraries.integers(),
                        Arbitraries.oneOf(
                                Arbitraries.longs().between(1, 4_000),
                                Arbitraries.longs().between(100_000, 400_000)),
                        Arbitraries.of(true, true, false))
                .as(Row::new);
        return row.list().ofMaxSize(30).list().ofMinSize(1).ofMaxSize(4).filter(groups -> {
            long distinct = groups.stream()
                    .flatMap(List::stream)
                    .map(Row::position)
                    .distinct()
                    .count();
            return distinct == groups.stream().mapToLong(List::size).sum();
        });
    }

    @Property(tries = 300)
    void everyRowOnceInTheIndexOrder(
            @ForAll("groups") List<List<Row>> groups,
            @ForAll @IntRange(min = 0, max = 12) int limit,
            @ForAll boolean forward,
            @ForAll boolean countOnly) {
        List<UUID> ids = new ArrayList<>();
        Map<UUID, List<Row>> held = new TreeMap<>();
        for (List<Row> rows : groups) {
            UUID id = UUID.randomUUID();
            ids.add(id);
            List<Row> sorted = new ArrayList<>(rows);
            Comparator<Row> order = Comparator.comparing(Row::encoded, java.util.Arrays::compareUnsigned);
            sorted.sort(forward ? order : order.reversed());
            held.put(id, sorted);
        }
        TableRanges ranges = TableRanges.even("pk", ids);
        RangeSpread.Sender sender = (group, target, body) -> {
            assertThat(target).isEqualTo(RangeSpread.QUERY_INDEX_RANGE);
            return CompletableFuture.completedFuture(new ClusterRouter.Reply(200, page(held.get(group), body)));
        };
        List<Row> all = new ArrayList<>();
        held.values().forEach(all::addAll);
        Comparator<Row> order = Comparator.comparing(Row::encoded, java.util.Arrays::compareUnsigned);
        all.sort(forward ? order : order.reversed());

        List<String> seen = new ArrayList<>();
        JsonNode start = null;
        int pages = 0;
        do {
            ObjectNode request = JSON.createObjectNode().put("TableName", "t").put("IndexName", "g");
            request.put("ScanIndexForward", forward);
            if (limit > 0) {
                request.put("Limit", limit);
            }
            if (countOnly) {
                request.put("Select", "COUNT");
            }
            if (start != null) {
                request.set("ExclusiveStartKey", start);
            }
            ClusterRouter.Reply reply = RangeSpread.queryIndex(RangeSpread.bytes(request), ranges, sender)
                    .join();
            assertThat(reply.status()).isEqualTo(200);
            ObjectNode page = BatchSpread.object(reply.body());
            long scanned = page.path("ScannedCount").asLong();
            if (limit > 0) {
                assertThat(scanned).isLessThanOrEqualTo(limit);
            }
            List<Row> read = all.subList(seen.size(), (int) Math.min(all.size(), seen.size() + scanned));
            assertThat(read.stream().mapToLong(Row::bytes).sum()
                            - (read.isEmpty() ? 0 : read.get(read.size() - 1).bytes()))
                    .as("a page stops once it has read a megabyte")
                    .isLessThan(RangeSpread.PAGE_BYTES);
            assertThat(page.path("Count").asLong())
                    .isEqualTo(read.stream().filter(Row::matched).count());
            if (countOnly) {
                assertThat(page.has("Items")).isFalse();
            } else {
                List<String> items = new ArrayList<>();
                page.path("Items").forEach(i -> items.add(i.path("p").path("S").asText()));
                assertThat(items)
                        .containsExactlyElementsOf(
                                read.stream().filter(Row::matched).map(Row::key).toList());
            }
            read.forEach(r -> seen.add(r.key()));
            start = page.get("LastEvaluatedKey");
            if (start != null) {
                assertThat(scanned).as("a page that goes on read a row").isPositive();
                assertThat(start.path("p").path("S").asText()).isEqualTo(seen.get(seen.size() - 1));
            }
            pages++;
        } while (start != null && pages < 1_000);
        assertThat(seen).containsExactlyElementsOf(all.stream().map(Row::key).toList());
    }

    /**
     * A PartiQL SELECT of several values of a global secondary index's key over the groups ({@link RangeSpread#select}
     * of such a statement): each row's value is its position modulo {@code values}; paged by its {@code Limit} to its
     * end, the pages give each value's matched rows once, in the index's order, value after value, ten values to a
     * page at most, never more items than the Limit.
     */
    @Property(tries = 200)
    void aSelectOfSeveralValuesReadsEachValueMergedInTurn(
            @ForAll("groups") List<List<Row>> groups,
            @ForAll @IntRange(min = 1, max = 24) int values,
            @ForAll @IntRange(min = 0, max = 12) int limit,
            @ForAll boolean forward) {
        Comparator<Row> order = Comparator.comparing(Row::encoded, java.util.Arrays::compareUnsigned);
        Comparator<Row> read = forward ? order : order.reversed();
        List<UUID> ids = new ArrayList<>();
        Map<UUID, List<Row>> held = new TreeMap<>();
        for (List<Row> rows : groups) {
            UUID id = UUID.randomUUID();
            ids.add(id);
            held.put(id, rows.stream().sorted(read).toList());
        }
        TableRanges ranges = TableRanges.even("pk", ids);
        RangeSpread.Sender sender = valuesSender(held, values, forward, false);
        List<String> expected = new ArrayList<>();
        for (int v = 0; v < values; v++) {
            int value = v;
            held.values().stream()
                    .flatMap(List::stream)
                    .filter(r -> Math.floorMod(r.position(), values) == value && r.matched())
                    .sorted(read)
                    .forEach(r -> expected.add(r.key()));
        }

        java.util.function.ToIntFunction<String> valueOf = k -> Math.floorMod(
                java.nio.ByteBuffer.wrap(Base64.getDecoder().decode(k)).getInt(), values);
        List<String> seen = new ArrayList<>();
        String next = null;
        int pages = 0;
        do {
            ObjectNode request = JSON.createObjectNode().put("Statement", "SELECT * FROM \"t\".\"g\" WHERE v IN ?");
            if (limit > 0) {
                request.put("Limit", limit);
            }
            if (next != null) {
                request.put("NextToken", next);
            }
            ClusterRouter.Reply reply = RangeSpread.select(RangeSpread.bytes(request), ranges, sender)
                    .join();
            assertThat(reply.status())
                    .as(new String(reply.body(), java.nio.charset.StandardCharsets.UTF_8))
                    .isEqualTo(200);
            ObjectNode page = BatchSpread.object(reply.body());
            List<String> items = new ArrayList<>();
            page.path("Items").forEach(i -> items.add(i.path("p").path("S").asText()));
            if (limit > 0) {
                assertThat(items).hasSizeLessThanOrEqualTo(limit);
            }
            assertThat(items.stream().map(valueOf::applyAsInt).distinct())
                    .as("ten values to a page at most")
                    .hasSizeLessThanOrEqualTo(10);
            seen.addAll(items);
            next = page.hasNonNull("NextToken") ? page.get("NextToken").asText() : null;
            pages++;
        } while (next != null && pages < 2_000);
        assertThat(seen).containsExactlyElementsOf(expected);
    }

    /**
     * Three values of two 400 KB items each, in one group: the first page reads the first value whole, then the second
     * (a megabyte of its own, as each of a single node's Queries reads), and stops before the third, its items past a
     * megabyte (counted as returned, as a single node counts its Queries' items).
     */
    @net.jqwik.api.Example
    void aPageOfSeveralValuesStopsAtItsMegabyte() {
        List<Row> rows = new ArrayList<>();
        for (int p = 0; p < 6; p++) {
            rows.add(new Row(p, 400_000, true));
        }
        UUID id = UUID.randomUUID();
        Map<UUID, List<Row>> held = new TreeMap<>(Map.of(id, rows));
        RangeSpread.Sender sender = valuesSender(held, 3, true, true);
        ObjectNode request = JSON.createObjectNode().put("Statement", "SELECT * FROM \"t\".\"g\" WHERE v IN ?");
        ObjectNode page = BatchSpread.object(
                RangeSpread.select(RangeSpread.bytes(request), TableRanges.even("pk", List.of(id)), sender)
                        .join()
                        .body());
        List<String> items = new ArrayList<>();
        page.path("Items").forEach(i -> items.add(i.path("p").path("S").asText()));
        // Value 0 is rows 0 and 3, value 1 rows 1 and 4.
        assertThat(items)
                .containsExactly(
                        rows.get(0).key(),
                        rows.get(3).key(),
                        rows.get(1).key(),
                        rows.get(4).key());
        JsonNode token = BatchSpread.object(
                Base64.getUrlDecoder().decode(page.path("NextToken").asText()));
        assertThat(token.path("Partition").asInt())
                .as("the next page starts with the third value")
                .isEqualTo(2);
        assertThat(token.has("Key")).isFalse();
        assertThat(page.has("LastEvaluatedKey")).isFalse();
    }

    /**
     * Groups {@code held} (each group's rows in the read's order) answering a SELECT of {@code values} values of an
     * index's key, each row's value its position modulo {@code values}: the walk's first page with the direction and
     * the number of values, then each value's share as {@link #page} reads it, from the token's key when the token is
     * of that value; each item its row's size when {@code padded} (an attribute {@code pad} of that many bytes).
     */
    private static RangeSpread.Sender valuesSender(
            Map<UUID, List<Row>> held, int values, boolean forward, boolean padded) {
        return (group, target, body) -> {
            assertThat(target).isEqualTo(RangeSpread.SELECT_RANGE);
            ObjectNode share = BatchSpread.object(body);
            if (!share.path("PartitaMergeIndex").asBoolean(false)) {
                // The walk's first page: the index's direction and the number of values, nothing read.
                ObjectNode first = JSON.createObjectNode().put("PartitaIndexForward", forward);
                first.putArray("Items");
                ArrayNode each = first.putArray("PartitaValueHashes");
                for (int i = 0; i < values; i++) {
                    each.add(0L);
                }
                return CompletableFuture.completedFuture(new ClusterRouter.Reply(200, RangeSpread.bytes(first)));
            }
            int value = share.path("PartitaValue").asInt(-1);
            assertThat(value).isBetween(0, values - 1);
            List<Row> mine = held.get(group).stream()
                    .filter(r -> Math.floorMod(r.position(), values) == value)
                    .toList();
            // The token's key is the start of its own value's Query alone.
            ObjectNode query = JSON.createObjectNode().put("ScanIndexForward", forward);
            if (share.has("Limit")) {
                query.set("Limit", share.get("Limit"));
            }
            JsonNode token = share.get("NextToken");
            if (token != null) {
                JsonNode t = BatchSpread.object(Base64.getUrlDecoder().decode(token.asText()));
                if (t.path("Partition").asInt(-1) == value && t.has("Key")) {
                    query.set("ExclusiveStartKey", t.get("Key"));
                }
            }
            query.put("PartitaHashRange", share.path("PartitaHashRange").asText());
            byte[] answer = page(mine, RangeSpread.bytes(query));
            if (padded) {
                ObjectNode out = BatchSpread.object(answer);
                for (JsonNode item : out.path("Items")) {
                    String key = item.path("p").path("S").asText();
                    long bytes = mine.stream()
                            .filter(r -> r.key().equals(key))
                            .findFirst()
                            .orElseThrow()
                            .bytes();
                    ((ObjectNode) item).putObject("pad").put("S", "x".repeat((int) bytes));
                }
                answer = RangeSpread.bytes(out);
            }
            return CompletableFuture.completedFuture(new ClusterRouter.Reply(200, answer));
        };
    }

    /**
     * A group's page of its {@code rows} (in the query's order) for share {@code body}: after its start key, up to its
     * Limit or a megabyte read (the row that passes it included), each row named, the matched ones' items in order.
     */
    private static byte[] page(List<Row> rows, byte[] body) {
        ObjectNode share = BatchSpread.object(body);
        assertThat(share.path("PartitaHashRange").asText()).isNotEmpty();
        boolean forward = share.path("ScanIndexForward").asBoolean(true);
        long limit = share.path("Limit").asLong(Long.MAX_VALUE);
        JsonNode start = share.get("ExclusiveStartKey");
        byte[] after = start == null
                ? null
                : Base64.getDecoder().decode(start.path("p").path("S").asText());
        ArrayNode entries = JSON.createArrayNode();
        ArrayNode items = JSON.createArrayNode();
        long read = 0;
        long bytes = 0;
        boolean stopped = false;
        Row last = null;
        for (Row r : rows) {
            if (after != null) {
                int c = java.util.Arrays.compareUnsigned(r.encoded(), after);
                if (forward ? c <= 0 : c >= 0) {
                    continue;
                }
            }
            ObjectNode key = JSON.createObjectNode();
            key.putObject("p").put("S", r.key());
            entries.addObject()
                    .put("Position", r.key())
                    .<ObjectNode>set("Key", key)
                    .put("Bytes", r.bytes())
                    .put("Matched", r.matched());
            if (r.matched()) {
                items.add(key.deepCopy());
            }
            read++;
            bytes += r.bytes();
            last = r;
            if (read >= limit || bytes >= RangeSpread.PAGE_BYTES) {
                stopped = true;
                break;
            }
        }
        ObjectNode out = JSON.createObjectNode();
        if (!"COUNT".equals(share.path("Select").asText(""))) {
            out.set("Items", items);
        }
        out.set("PartitaEntries", entries);
        if (stopped) {
            ObjectNode key = JSON.createObjectNode();
            key.putObject("p").put("S", last.key());
            out.set("LastEvaluatedKey", key);
        }
        return RangeSpread.bytes(out);
    }
}
