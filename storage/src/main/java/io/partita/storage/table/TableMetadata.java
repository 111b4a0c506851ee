package io.partita.storage.table;

import io.partita.protocol.message.AttributeDefinition;
import io.partita.protocol.model.KeySchema;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything Partita keeps about a table besides its items, persisted as JSON in the {@code meta} column family.
 * Immutable: a change stores a new instance.
 *
 * @param id a UUID; the items column family is named after it, so a re-created table never sees old data
 * @param billingMode {@code PROVISIONED} or {@code PAY_PER_REQUEST}
 * @param readCapacityUnits provisioned RCU (0 when on demand)
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
        Map<String, String> tags) {

    public static final String PROVISIONED = "PROVISIONED";
    public static final String PAY_PER_REQUEST = "PAY_PER_REQUEST";

    public TableMetadata {
        attributeDefinitions = List.copyOf(attributeDefinitions);
        tags = new LinkedHashMap<>(tags);
    }

    public String itemsFamily() {
        return io.partita.storage.rocks.RocksStore.ITEMS_PREFIX + id;
    }

    @Override
    public Map<String, String> tags() {
        return java.util.Collections.unmodifiableMap(tags);
    }

    public TableMetadata withThroughput(
            String billingMode,
            long rcu,
            long wcu,
            Long lastIncrease,
            Long lastDecrease,
            int decreasesToday,
            Long lastPayPerRequest) {
        return new TableMetadata(
                name,
                id,
                keySchema,
                attributeDefinitions,
                billingMode,
                rcu,
                wcu,
                creationMillis,
                lastIncrease,
                lastDecrease,
                decreasesToday,
                lastPayPerRequest,
                tableClass,
                deletionProtectionEnabled,
                tags);
    }

    public TableMetadata withDeletionProtection(boolean enabled) {
        return new TableMetadata(
                name,
                id,
                keySchema,
                attributeDefinitions,
                billingMode,
                readCapacityUnits,
                writeCapacityUnits,
                creationMillis,
                lastIncreaseMillis,
                lastDecreaseMillis,
                decreasesToday,
                lastPayPerRequestMillis,
                tableClass,
                enabled,
                tags);
    }

    public TableMetadata withTableClass(String newClass) {
        return new TableMetadata(
                name,
                id,
                keySchema,
                attributeDefinitions,
                billingMode,
                readCapacityUnits,
                writeCapacityUnits,
                creationMillis,
                lastIncreaseMillis,
                lastDecreaseMillis,
                decreasesToday,
                lastPayPerRequestMillis,
                newClass,
                deletionProtectionEnabled,
                tags);
    }

    public TableMetadata withTags(Map<String, String> newTags) {
        return new TableMetadata(
                name,
                id,
                keySchema,
                attributeDefinitions,
                billingMode,
                readCapacityUnits,
                writeCapacityUnits,
                creationMillis,
                lastIncreaseMillis,
                lastDecreaseMillis,
                decreasesToday,
                lastPayPerRequestMillis,
                tableClass,
                deletionProtectionEnabled,
                newTags);
    }
}
