package io.partita.server.op.query;

import io.partita.protocol.expr.ConditionEvaluator;
import io.partita.protocol.expr.ProjectionApplier;
import io.partita.protocol.expr.ast.Condition;
import io.partita.protocol.expr.ast.Path;
import io.partita.protocol.message.ReadPageOutput;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.ItemSize;
import io.partita.protocol.model.KeySchema;
import io.partita.storage.StorageEngine;
import io.partita.storage.key.ItemKeyEncoder;
import io.partita.storage.key.KeyRanges;
import io.partita.storage.table.TableCatalog.Table;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * Reads one page of a Query or Scan the way DynamoDB does ("Paginating table query results", Query.Pagination): it
 * evaluates items in key order until {@code Limit} items or 1 MB (by DynamoDB's item size) have been read, then
 * applies the filter, so {@code ScannedCount} counts what was read and {@code Count} what matched. A page that stopped
 * early names its last evaluated item's key, even if no item follows it.
 */
final class PageReader {
    /** DynamoDB reads at most 1 MB per Query or Scan page. */
    static final long MAX_PAGE_BYTES = 1024 * 1024;

    private PageReader() {}

    /** One page: the matching items (projected), the counts, the resume key and the bytes read. */
    record Page(
            List<Map<String, AttributeValue>> items,
            int count,
            int scanned,
            Map<String, AttributeValue> lastEvaluatedKey,
            long bytesRead,
            Map<String, AttributeValue> lastScannedKey,
            Long scannedBytes,
            List<ReadPageOutput.Entry> entries) {}

    static Page read(
            StorageEngine storage,
            ReadTarget target,
            KeyRanges.Range range,
            boolean forward,
            Long limit,
            Condition filter,
            List<Path> projection,
            boolean countOnly,
            boolean fetch,
            boolean keyAtEnd,
            long maxBytes) {
        return read(
                storage,
                target,
                range,
                forward,
                limit,
                filter,
                projection,
                countOnly,
                fetch,
                keyAtEnd,
                maxBytes,
                null,
                false);
    }

    /**
     * As above, for a global secondary index of a table cut by hash ranges (a cluster's group, docs/CLUSTER.md): the
     * rows of items whose partition key hashes outside {@code held} (when not null) are skipped, another group's to
     * read (or a move's copies, not served yet, or left here to be deleted); with {@code named}, each row read is named
     * in the page's {@code entries} for the node that merges the groups' pages.
     */
    static Page read(
            StorageEngine storage,
            ReadTarget target,
            KeyRanges.Range range,
            boolean forward,
            Long limit,
            Condition filter,
            List<Path> projection,
            boolean countOnly,
            boolean fetch,
            boolean keyAtEnd,
            long maxBytes,
            io.partita.storage.table.HashRange held,
            boolean named) {
        Table table = target.table();
        KeySchema schema = table.metadata().keySchema();
        String partitionKey = schema.partitionKey().name();
        List<ReadPageOutput.Entry> entries = named ? new ArrayList<>() : null;
        List<Map<String, AttributeValue>> items = new ArrayList<>();
        int[] counts = new int[2];
        long[] bytes = new long[1];
        Object[] last = new Object[1];
        boolean[] stopped = new boolean[1];
        StorageEngine.ItemVisitor visitor = (key, read, storedBytes) -> {
            if (held != null && !held.holds(ItemKeyEncoder.partitionHash(read.get(partitionKey)))) {
                return true;
            }
            counts[1]++;
            long before = bytes[0];
            bytes[0] += ItemSize.of(read);
            last[0] = read;
            Map<String, AttributeValue> item = read;
            if (fetch) {
                // An LSI read of attributes the index does not copy reads the whole item from the table too.
                Map<String, AttributeValue> whole = storage.get(table, schema.keyOfItem(read));
                if (whole != null) {
                    item = whole;
                    bytes[0] += ItemSize.of(whole);
                }
            }
            boolean matched = filter == null || ConditionEvaluator.test(filter, item);
            if (matched) {
                counts[0]++;
                if (!countOnly) {
                    items.add(projection == null ? item : ProjectionApplier.project(item, projection));
                }
            }
            if (entries != null) {
                entries.add(new ReadPageOutput.Entry(
                        Base64.getEncoder().encodeToString(key), target.lastKey(read), bytes[0] - before, matched));
            }
            if ((limit != null && counts[1] >= limit) || bytes[0] >= maxBytes) {
                stopped[0] = true;
                return false;
            }
            return true;
        };
        if (target.index() == null) {
            storage.range(table, range, forward, visitor);
        } else {
            storage.rangeIndex(target.index(), range, forward, visitor);
        }
        Map<String, AttributeValue> lastKey = null;
        if (stopped[0]) {
            @SuppressWarnings("unchecked")
            Map<String, AttributeValue> lastItem = (Map<String, AttributeValue>) last[0];
            lastKey = target.lastKey(lastItem);
        }
        Map<String, AttributeValue> lastScanned = null;
        if (keyAtEnd && !stopped[0] && last[0] != null) {
            @SuppressWarnings("unchecked")
            Map<String, AttributeValue> lastItem = (Map<String, AttributeValue>) last[0];
            lastScanned = target.lastKey(lastItem);
        }
        return new Page(
                items, counts[0], counts[1], lastKey, bytes[0], lastScanned, keyAtEnd ? bytes[0] : null, entries);
    }
}
