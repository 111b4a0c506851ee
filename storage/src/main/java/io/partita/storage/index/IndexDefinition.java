package io.partita.storage.index;

import io.partita.protocol.model.KeySchema.KeyAttribute;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One secondary index of a table, as its metadata keeps it. A local index (LSI) shares the table's partition key and
 * is written in each item's own batch; a global one (GSI) has its own key of up to four partition and four sort
 * attributes (multi-attribute keys, "Multi-attribute keys for global secondary indexes"), its own capacity, and is
 * applied from the change feed.
 *
 * @param id unique for the life of the data directory: the index's column family and feed consumer are named after it,
 *     so an index created again under an old name never sees the old one's rows
 * @param projectionType {@code KEYS_ONLY}, {@code INCLUDE} or {@code ALL}
 * @param nonKeyAttributes for {@code INCLUDE}: the attributes copied besides the keys; else empty
 * @param status {@code CREATING}, {@code ACTIVE}, {@code UPDATING} or {@code DELETING} (GSIs only)
 * @param backfilling a GSI created on a table with data is copying the existing items
 * @param warmReadUnitsPerSecond a GSI's requested {@code WarmThroughput} (null for none): it starts with enough
 *     partitions to serve it at once
 */
public record IndexDefinition(
        String name,
        String id,
        boolean global,
        List<KeyAttribute> partitionKeys,
        List<KeyAttribute> sortKeys,
        String projectionType,
        List<String> nonKeyAttributes,
        long readCapacityUnits,
        long writeCapacityUnits,
        Long maxReadRequestUnits,
        Long maxWriteRequestUnits,
        String status,
        boolean backfilling,
        long creationMillis,
        Long warmReadUnitsPerSecond,
        Long warmWriteUnitsPerSecond) {

    public static final String ALL = "ALL";
    public static final String KEYS_ONLY = "KEYS_ONLY";
    public static final String INCLUDE = "INCLUDE";
    public static final String FAMILY_PREFIX = "index/";

    public IndexDefinition {
        partitionKeys = List.copyOf(partitionKeys);
        sortKeys = List.copyOf(sortKeys);
        nonKeyAttributes = nonKeyAttributes == null ? List.of() : List.copyOf(nonKeyAttributes);
    }

    /** The column family of this index of the table with id {@code tableId}. */
    public String family(String tableId) {
        return FAMILY_PREFIX + tableId + "/" + id;
    }

    /** The name of the change-feed consumer that applies this GSI. */
    public String consumerName() {
        return "gsi:" + id;
    }

    /** The index's key attributes: partition attributes, then sort attributes. */
    public List<KeyAttribute> keyAttributes() {
        List<KeyAttribute> all = new ArrayList<>(partitionKeys);
        all.addAll(sortKeys);
        return all;
    }

    public boolean hasSortKey() {
        return !sortKeys.isEmpty();
    }

    /** Whether the index projects every attribute. */
    public boolean projectsAll() {
        return ALL.equals(projectionType);
    }

    /** The non-key attribute names this index copies, besides every key (empty for KEYS_ONLY, unused for ALL). */
    public Set<String> projectedNonKeys() {
        return new LinkedHashSet<>(nonKeyAttributes);
    }

    public IndexDefinition withStatus(String newStatus, boolean nowBackfilling) {
        return new IndexDefinition(
                name,
                id,
                global,
                partitionKeys,
                sortKeys,
                projectionType,
                nonKeyAttributes,
                readCapacityUnits,
                writeCapacityUnits,
                maxReadRequestUnits,
                maxWriteRequestUnits,
                newStatus,
                nowBackfilling,
                creationMillis,
                warmReadUnitsPerSecond,
                warmWriteUnitsPerSecond);
    }

    public IndexDefinition withThroughput(long rcu, long wcu, Long maxRead, Long maxWrite) {
        return new IndexDefinition(
                name,
                id,
                global,
                partitionKeys,
                sortKeys,
                projectionType,
                nonKeyAttributes,
                rcu,
                wcu,
                maxRead,
                maxWrite,
                status,
                backfilling,
                creationMillis,
                warmReadUnitsPerSecond,
                warmWriteUnitsPerSecond);
    }
}
