package io.partita.storage.table;

import io.partita.protocol.message.AttributeDefinition;
import io.partita.protocol.model.KeySchema;
import io.partita.storage.index.IndexDefinition;
import io.partita.storage.stream.StreamDefinition;
import io.partita.storage.ttl.TtlSettings;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Everything Partita keeps about a table besides its items, persisted as JSON in the {@code meta} column family.
 * Immutable: a change stores a new instance.
 *
 * @param id a UUID; the items column family is named after it, so a re-created table never sees old data
 * @param billingMode {@code PROVISIONED} or {@code PAY_PER_REQUEST}
 * @param readCapacityUnits provisioned RCU (0 when on demand)
 * @param maxReadRequestUnits the on-demand table's {@code OnDemandThroughput} maximum, or null/-1 for none
 * @param contributorInsightsMode null when Contributor Insights is off, else {@code ACCESSED_AND_THROTTLED_KEYS} or
 *     {@code THROTTLED_KEYS}
 * @param warmReadUnits the highest read throughput the table has been warm for ({@code WarmThroughput}: asked for,
 *     or reported before a change); null for none beyond what its capacity gives it now
 * @param warmWriteUnits the same for writes
 * @param sseKmsKeyArn the KMS key the table is encrypted with ({@code SSEType KMS}); null for an AWS owned key
 * @param tableClassChanges when the table class was changed (the last two), for DynamoDB's two changes in 30 days
 * @param pointInTimeRecovery the table's PITR; null when it was never enabled (off)
 * @param hashRange the items of the table this store holds, when the table is cut by hash ranges over several Raft
 *     groups of a cluster; null for a table kept whole (every table on a single node)
 */
public record TableMetadata(
        String name,
        String id,
        KeySchema keySchema,
        List<AttributeDefinition> attributeDefinitions,
        String billingMode,
        long readCapacityUnits,
        long writeCapacityUnits,
        long creationMillis,
        Long lastIncreaseMillis,
        Long lastDecreaseMillis,
        int decreasesToday,
        Long lastPayPerRequestMillis,
        String tableClass,
        boolean deletionProtectionEnabled,
        Map<String, String> tags,
        Long maxReadRequestUnits,
        Long maxWriteRequestUnits,
        String contributorInsightsMode,
        List<IndexDefinition> indexes,
        List<StreamDefinition> streams,
        TtlSettings ttl,
        Long warmReadUnits,
        Long warmWriteUnits,
        String sseKmsKeyArn,
        List<Long> tableClassChanges,
        PitrSettings pointInTimeRecovery,
        HashRange hashRange) {

    public static final String PROVISIONED = "PROVISIONED";
    public static final String PAY_PER_REQUEST = "PAY_PER_REQUEST";

    public TableMetadata {
        attributeDefinitions = List.copyOf(attributeDefinitions);
        tags = new LinkedHashMap<>(tags);
        // Absent from metadata stored before secondary indexes existed.
        indexes = indexes == null ? List.of() : List.copyOf(indexes);
        streams = streams == null ? List.of() : List.copyOf(streams);
        // Absent from metadata stored before table class changes were counted.
        tableClassChanges = tableClassChanges == null ? List.of() : List.copyOf(tableClassChanges);
    }

    /** A new table's metadata, without the settings that only UpdateTable and friends change. */
    public static TableMetadata create(
            String name,
            String id,
            KeySchema keySchema,
            List<AttributeDefinition> attributeDefinitions,
            String billingMode,
            long readCapacityUnits,
            long writeCapacityUnits,
            long creationMillis,
            String tableClass,
            boolean deletionProtectionEnabled,
            Map<String, String> tags) {
        return new TableMetadata(
                name,
                id,
                keySchema,
                attributeDefinitions,
                billingMode,
                readCapacityUnits,
                writeCapacityUnits,
                creationMillis,
                null,
                null,
                0,
                PAY_PER_REQUEST.equals(billingMode) ? creationMillis : null,
                tableClass,
                deletionProtectionEnabled,
                tags,
                null,
                null,
                null,
                List.of(),
                List.of(),
                null,
                null,
                null,
                null,
                List.of(),
                null,
                null);
    }

    public String itemsFamily() {
        return io.partita.storage.rocks.RocksStore.ITEMS_PREFIX + id;
    }

    @Override
    public Map<String, String> tags() {
        return java.util.Collections.unmodifiableMap(tags);
    }

    public boolean onDemand() {
        return PAY_PER_REQUEST.equals(billingMode);
    }

    public TableMetadata withThroughput(
            String billingMode,
            long rcu,
            long wcu,
            Long lastIncrease,
            Long lastDecrease,
            int decreasesToday,
            Long lastPayPerRequest) {
        return with(c -> {
            c.billingMode = billingMode;
            c.readCapacityUnits = rcu;
            c.writeCapacityUnits = wcu;
            c.lastIncreaseMillis = lastIncrease;
            c.lastDecreaseMillis = lastDecrease;
            c.decreasesToday = decreasesToday;
            c.lastPayPerRequestMillis = lastPayPerRequest;
        });
    }

    public TableMetadata withDeletionProtection(boolean enabled) {
        return with(c -> c.deletionProtectionEnabled = enabled);
    }

    public TableMetadata withTableClass(String newClass) {
        return with(c -> c.tableClass = newClass);
    }

    public TableMetadata withTags(Map<String, String> newTags) {
        return with(c -> c.tags = newTags);
    }

    /** The {@code OnDemandThroughput} maximums; null or -1 means none. */
    public TableMetadata withOnDemandMaximums(Long maxRead, Long maxWrite) {
        return with(c -> {
            c.maxReadRequestUnits = maxRead;
            c.maxWriteRequestUnits = maxWrite;
        });
    }

    /** The index named {@code name}, or null. */
    public IndexDefinition index(String name) {
        for (IndexDefinition d : indexes) {
            if (d.name().equals(name)) {
                return d;
            }
        }
        return null;
    }

    public TableMetadata withAttributeDefinitions(List<AttributeDefinition> next) {
        return with(c -> c.attributeDefinitions = List.copyOf(next));
    }

    /** The table's enabled stream, or null. */
    public StreamDefinition stream() {
        for (StreamDefinition d : streams) {
            if (d.enabled()) {
                return d;
            }
        }
        return null;
    }

    /** The stream labelled {@code label} (enabled, or disabled and still kept), or null. */
    public StreamDefinition stream(String label) {
        for (StreamDefinition d : streams) {
            if (d.label().equals(label)) {
                return d;
            }
        }
        return null;
    }

    /** The table's TTL: whether it is on, its attribute, when it last changed; null if it never was set. */
    public TableMetadata withTtl(TtlSettings next) {
        return with(c -> c.ttl = next);
    }

    /** Whether expired items of this table are reaped, and by which attribute. */
    public boolean ttlEnabled() {
        return ttl != null && ttl.enabled();
    }

    public TableMetadata withStreams(List<StreamDefinition> next) {
        return with(c -> c.streams = List.copyOf(next));
    }

    public TableMetadata withIndexes(List<IndexDefinition> next) {
        return with(c -> c.indexes = List.copyOf(next));
    }

    /** The throughput the table is warm for, each null for none beyond its capacity's. */
    public TableMetadata withWarmThroughput(Long read, Long write) {
        return with(c -> {
            c.warmReadUnits = read;
            c.warmWriteUnits = write;
        });
    }

    /** Encrypted with KMS key {@code keyArn}, or with an AWS owned key (null). */
    public TableMetadata withSseKey(String keyArn) {
        return with(c -> c.sseKmsKeyArn = keyArn);
    }

    /** A change of table class to {@code newClass} at {@code millis}. */
    public TableMetadata withTableClassChanged(String newClass, long millis) {
        return with(c -> {
            c.tableClass = newClass;
            List<Long> changes = new java.util.ArrayList<>(tableClassChanges);
            changes.add(millis);
            c.tableClassChanges = changes.subList(Math.max(0, changes.size() - 2), changes.size());
        });
    }

    /** When the table class last changed, or null if it never did. */
    public Long tableClassChangedMillis() {
        return tableClassChanges.isEmpty() ? null : tableClassChanges.get(tableClassChanges.size() - 1);
    }

    public TableMetadata withPointInTimeRecovery(PitrSettings next) {
        return with(c -> c.pointInTimeRecovery = next);
    }

    /** Whether point-in-time recovery is on. */
    public boolean pitrEnabled() {
        return pointInTimeRecovery != null && pointInTimeRecovery.enabled();
    }

    /** Holding the items of {@code range} alone, of a table cut by hash ranges; null for the whole table. */
    public TableMetadata withHashRange(HashRange range) {
        return with(c -> c.hashRange = range);
    }

    public TableMetadata withContributorInsights(String mode) {
        return with(c -> c.contributorInsightsMode = mode);
    }

    private TableMetadata with(Consumer<Copy> change) {
        Copy c = new Copy(this);
        change.accept(c);
        return c.build();
    }

    /** A mutable copy of every component, so each {@code with…} names only what it changes. */
    private static final class Copy {
        private final TableMetadata m;
        String billingMode;
        long readCapacityUnits;
        long writeCapacityUnits;
        Long lastIncreaseMillis;
        Long lastDecreaseMillis;
        int decreasesToday;
        Long lastPayPerRequestMillis;
        String tableClass;
        boolean deletionProtectionEnabled;
        Map<String, String> tags;
        Long maxReadRequestUnits;
        Long maxWriteRequestUnits;
        String contributorInsightsMode;
        List<IndexDefinition> indexes;
        List<AttributeDefinition> attributeDefinitions;
        List<StreamDefinition> streams;
        TtlSettings ttl;
        Long warmReadUnits;
        Long warmWriteUnits;
        String sseKmsKeyArn;
        List<Long> tableClassChanges;
        PitrSettings pointInTimeRecovery;
        HashRange hashRange;

        Copy(TableMetadata m) {
            this.m = m;
            billingMode = m.billingMode;
            readCapacityUnits = m.readCapacityUnits;
            writeCapacityUnits = m.writeCapacityUnits;
            lastIncreaseMillis = m.lastIncreaseMillis;
            lastDecreaseMillis = m.lastDecreaseMillis;
            decreasesToday = m.decreasesToday;
            lastPayPerRequestMillis = m.lastPayPerRequestMillis;
            tableClass = m.tableClass;
            deletionProtectionEnabled = m.deletionProtectionEnabled;
            tags = m.tags;
            maxReadRequestUnits = m.maxReadRequestUnits;
            maxWriteRequestUnits = m.maxWriteRequestUnits;
            contributorInsightsMode = m.contributorInsightsMode;
            indexes = m.indexes;
            attributeDefinitions = m.attributeDefinitions;
            streams = m.streams;
            ttl = m.ttl;
            warmReadUnits = m.warmReadUnits;
            warmWriteUnits = m.warmWriteUnits;
            sseKmsKeyArn = m.sseKmsKeyArn;
            tableClassChanges = m.tableClassChanges;
            pointInTimeRecovery = m.pointInTimeRecovery;
            hashRange = m.hashRange;
        }

        TableMetadata build() {
            return new TableMetadata(
                    m.name,
                    m.id,
                    m.keySchema,
                    attributeDefinitions,
                    billingMode,
                    readCapacityUnits,
                    writeCapacityUnits,
                    m.creationMillis,
                    lastIncreaseMillis,
                    lastDecreaseMillis,
                    decreasesToday,
                    lastPayPerRequestMillis,
                    tableClass,
                    deletionProtectionEnabled,
                    tags,
                    maxReadRequestUnits,
                    maxWriteRequestUnits,
                    contributorInsightsMode,
                    indexes,
                    streams,
                    ttl,
                    warmReadUnits,
                    warmWriteUnits,
                    sseKmsKeyArn,
                    tableClassChanges,
                    pointInTimeRecovery,
                    hashRange);
        }
    }
}
