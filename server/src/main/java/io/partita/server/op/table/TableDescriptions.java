package io.partita.server.op.table;

import io.partita.protocol.message.BillingModeSummary;
import io.partita.protocol.message.GlobalSecondaryIndexDescription;
import io.partita.protocol.message.KeySchemaElement;
import io.partita.protocol.message.LocalSecondaryIndexDescription;
import io.partita.protocol.message.OnDemandThroughput;
import io.partita.protocol.message.Projection;
import io.partita.protocol.message.ProvisionedThroughputDescription;
import io.partita.protocol.message.SseDescription;
import io.partita.protocol.message.StreamSpecification;
import io.partita.protocol.message.TableClassSummary;
import io.partita.protocol.message.TableDescription;
import io.partita.protocol.message.TableWarmThroughputDescription;
import io.partita.protocol.model.KeySchema;
import io.partita.server.op.TableNames;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.index.IndexDefinition;
import io.partita.storage.stream.StreamDefinition;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.table.TableMetadata;
import io.partita.storage.table.TableStats;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

/** Builds DynamoDB's {@code TableDescription} from a table's metadata and live statistics. */
final class TableDescriptions {
    private TableDescriptions() {}

    static TableDescription describe(RequestContext context, StorageEngine storage, Table table, String status) {
        return describe(context, storage, table, table.metadata(), status, false);
    }

    /**
     * UpdateTable's answer: {@code table} as metadata {@code m} has it, a snapshot taken before background work moved
     * on. A GSI the update creates is {@code Backfilling: false} in it: the copy has not begun (the AWS CLI's
     * update-table example and captured answers); DescribeTable shows {@code true} while it runs.
     */
    static TableDescription updated(
            RequestContext context, StorageEngine storage, Table table, TableMetadata m, String status) {
        return describe(context, storage, table, m, status, true);
    }

    private static TableDescription describe(
            RequestContext context,
            StorageEngine storage,
            Table table,
            TableMetadata m,
            String status,
            boolean updateAnswer) {
        String arn = TableNames.arn(context, m.name());
        TableStats stats = table.stats();
        boolean onDemand = TableMetadata.PAY_PER_REQUEST.equals(m.billingMode());
        return new TableDescription(
                m.attributeDefinitions(),
                m.name(),
                keySchema(m.keySchema()),
                status,
                seconds(m.creationMillis()),
                new ProvisionedThroughputDescription(
                        seconds(m.lastIncreaseMillis()),
                        seconds(m.lastDecreaseMillis()),
                        (long) m.decreasesToday(),
                        m.readCapacityUnits(),
                        m.writeCapacityUnits()),
                stats.sizeBytes(),
                stats.itemCount(),
                arn,
                m.id(),
                onDemand || m.lastPayPerRequestMillis() != null
                        ? new BillingModeSummary(m.billingMode(), seconds(m.lastPayPerRequestMillis()))
                        : null,
                m.tableClass() == null
                        ? null
                        : new TableClassSummary(m.tableClass(), seconds(m.tableClassChangedMillis())),
                m.deletionProtectionEnabled(),
                onDemandThroughput(m.maxReadRequestUnits(), m.maxWriteRequestUnits()),
                locals(storage, table, m, arn),
                globals(storage, table, m, arn, status, updateAnswer),
                m.stream() == null
                        ? null
                        : new StreamSpecification(true, m.stream().viewType(), null),
                latestStream(m) == null ? null : latestStream(m).label(),
                latestStream(m) == null
                        ? null
                        : arn + "/stream/" + latestStream(m).label(),
                SseSpecs.describe(m.sseKmsKeyArn(), "ENABLED"),
                WarmThroughputs.describe(m, table, "ACTIVE"),
                null);
    }

    /**
     * CreateTable's answer: as DescribeTable's, in status {@code CREATING}, but an on-demand table's
     * {@code BillingModeSummary} has no {@code LastUpdateToPayPerRequestDateTime} yet (the AWS CLI's create-table
     * examples and captured answers; DescribeTable shows it from then on, equal to the creation time).
     */
    static TableDescription creating(RequestContext context, StorageEngine storage, Table table, boolean warmAsked) {
        TableDescription d = describe(context, storage, table, "CREATING");
        BillingModeSummary billing = d.billingModeSummary() == null
                ? null
                : new BillingModeSummary(d.billingModeSummary().billingMode(), null);
        // WarmThroughput only when it was asked for, and still UPDATING (answers captured in 2026).
        TableWarmThroughputDescription warm = warmAsked
                ? new TableWarmThroughputDescription(
                        d.warmThroughput().readUnitsPerSecond(),
                        d.warmThroughput().writeUnitsPerSecond(),
                        "UPDATING")
                : null;
        return reshape(d, d.provisionedThroughput(), billing, true, d.sseDescription(), warm);
    }

    /**
     * DeleteTable's answer, in status {@code DELETING}: DynamoDB leaves out the schema — {@code AttributeDefinitions},
     * {@code KeySchema}, {@code CreationDateTime} and both kinds of secondary index, even when the table has them (the
     * AWS CLI's delete-table example and answers captured from DynamoDB, e.g. architect/dynalite#60).
     */
    static TableDescription deleting(RequestContext context, StorageEngine storage, Table table) {
        TableDescription d = describe(context, storage, table, "DELETING");
        return reshape(d, d.provisionedThroughput(), d.billingModeSummary(), false);
    }

    /**
     * {@code d} with its capacity and billing summary replaced and, unless {@code schema}, without its attribute
     * definitions, key schema, creation time and indexes.
     */
    static TableDescription reshape(
            TableDescription d, ProvisionedThroughputDescription capacity, BillingModeSummary billing, boolean schema) {
        return reshape(d, capacity, billing, schema, d.sseDescription(), d.warmThroughput());
    }

    /** {@link #reshape(TableDescription, ProvisionedThroughputDescription, BillingModeSummary, boolean)}, with these. */
    static TableDescription reshape(
            TableDescription d,
            ProvisionedThroughputDescription capacity,
            BillingModeSummary billing,
            boolean schema,
            SseDescription sse,
            TableWarmThroughputDescription warm) {
        return new TableDescription(
                schema ? d.attributeDefinitions() : null,
                d.tableName(),
                schema ? d.keySchema() : null,
                d.tableStatus(),
                schema ? d.creationDateTime() : null,
                capacity,
                d.tableSizeBytes(),
                d.itemCount(),
                d.tableArn(),
                d.tableId(),
                billing,
                d.tableClassSummary(),
                d.deletionProtectionEnabled(),
                d.onDemandThroughput(),
                schema ? d.localSecondaryIndexes() : null,
                schema ? d.globalSecondaryIndexes() : null,
                d.streamSpecification(),
                d.latestStreamLabel(),
                d.latestStreamArn(),
                sse,
                warm,
                d.restoreSummary());
    }

    /** The table's newest stream, enabled or disabled: DescribeTable names it after a disable too. */
    private static StreamDefinition latestStream(TableMetadata m) {
        StreamDefinition latest = null;
        for (StreamDefinition d : m.streams()) {
            if (latest == null || d.createdMillis() >= latest.createdMillis()) {
                latest = d;
            }
        }
        return latest;
    }

    private static List<LocalSecondaryIndexDescription> locals(
            StorageEngine storage, Table table, TableMetadata m, String arn) {
        List<LocalSecondaryIndexDescription> out = new ArrayList<>();
        for (IndexDefinition d : m.indexes()) {
            if (!d.global()) {
                TableStats stats = storage.tables().indexStats(table, d.id());
                out.add(new LocalSecondaryIndexDescription(
                        d.name(), keySchema(d), projection(d), stats.sizeBytes(), stats.itemCount(), indexArn(arn, d)));
            }
        }
        return out.isEmpty() ? null : out;
    }

    /**
     * The GSIs. In CreateTable's answer they are {@code CREATING} with the table; {@code Backfilling} is shown only
     * while an index is being added to a table that exists, as DynamoDB shows it.
     */
    private static List<GlobalSecondaryIndexDescription> globals(
            StorageEngine storage, Table table, TableMetadata m, String arn, String tableStatus, boolean updateAnswer) {
        List<GlobalSecondaryIndexDescription> out = new ArrayList<>();
        for (IndexDefinition d : m.indexes()) {
            if (!d.global()) {
                continue;
            }
            TableStats stats = storage.tables().indexStats(table, d.id());
            String status = "CREATING".equals(tableStatus) ? "CREATING" : d.status();
            out.add(new GlobalSecondaryIndexDescription(
                    d.name(),
                    keySchema(d),
                    projection(d),
                    status,
                    "CREATING".equals(d.status()) ? d.backfilling() && !updateAnswer : null,
                    new ProvisionedThroughputDescription(null, null, 0L, d.readCapacityUnits(), d.writeCapacityUnits()),
                    stats.sizeBytes(),
                    stats.itemCount(),
                    indexArn(arn, d),
                    onDemandThroughput(d.maxReadRequestUnits(), d.maxWriteRequestUnits()),
                    warm(table, d)));
        }
        return out.isEmpty() ? null : out;
    }

    /**
     * What the GSI can serve at once, as DynamoDB reports it on every GSI ("WarmThroughput"): its partitions times
     * their ceilings.
     */
    private static GlobalSecondaryIndexDescription.WarmThroughputDescription warm(Table table, IndexDefinition d) {
        var live = table.indexes().find(d.name());
        if (live == null || live.partitions() == null) {
            return null;
        }
        long[] w = io.partita.storage.index.IndexThroughput.warm(live.partitions());
        return new GlobalSecondaryIndexDescription.WarmThroughputDescription(w[0], w[1], "ACTIVE");
    }

    static String indexArn(String tableArn, IndexDefinition d) {
        return tableArn + "/index/" + d.name();
    }

    static List<KeySchemaElement> keySchema(IndexDefinition d) {
        List<KeySchemaElement> out = new ArrayList<>();
        d.partitionKeys().forEach(k -> out.add(new KeySchemaElement(k.name(), "HASH")));
        d.sortKeys().forEach(k -> out.add(new KeySchemaElement(k.name(), "RANGE")));
        return out;
    }

    static Projection projection(IndexDefinition d) {
        return new Projection(
                d.projectionType(), IndexDefinition.INCLUDE.equals(d.projectionType()) ? d.nonKeyAttributes() : null);
    }

    /**
     * The maximums that are set: a member never set, or cleared with -1, is left out, and the whole shape when neither
     * is set (answers captured in 2026: a table without maximums has no {@code OnDemandThroughput}).
     */
    static OnDemandThroughput onDemandThroughput(Long maxRead, Long maxWrite) {
        Long read = maxRead == null || maxRead < 0 ? null : maxRead;
        Long write = maxWrite == null || maxWrite < 0 ? null : maxWrite;
        return read == null && write == null ? null : new OnDemandThroughput(read, write);
    }

    static List<KeySchemaElement> keySchema(KeySchema schema) {
        List<KeySchemaElement> out = new ArrayList<>(2);
        out.add(new KeySchemaElement(schema.partitionKey().name(), "HASH"));
        if (schema.hasSortKey()) {
            out.add(new KeySchemaElement(schema.sortKey().name(), "RANGE"));
        }
        return out;
    }

    /** DynamoDB's timestamps: epoch seconds with millisecond fraction. */
    static BigDecimal seconds(Long millis) {
        return millis == null ? null : BigDecimal.valueOf(millis, 3);
    }
}
