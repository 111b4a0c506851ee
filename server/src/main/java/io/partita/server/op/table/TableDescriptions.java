package io.partita.server.op.table;

import io.partita.protocol.message.BillingModeSummary;
import io.partita.protocol.message.KeySchemaElement;
import io.partita.protocol.message.OnDemandThroughput;
import io.partita.protocol.message.ProvisionedThroughputDescription;
import io.partita.protocol.message.TableClassSummary;
import io.partita.protocol.message.TableDescription;
import io.partita.protocol.model.KeySchema;
import io.partita.server.op.TableNames;
import io.partita.server.route.RequestContext;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.table.TableMetadata;
import io.partita.storage.table.TableStats;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

/** Builds DynamoDB's {@code TableDescription} from a table's metadata and live statistics. */
final class TableDescriptions {
    private TableDescriptions() {}

    static TableDescription describe(RequestContext context, Table table, String status) {
        TableMetadata m = table.metadata();
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
                TableNames.arn(context, m.name()),
                m.id(),
                onDemand || m.lastPayPerRequestMillis() != null
                        ? new BillingModeSummary(m.billingMode(), seconds(m.lastPayPerRequestMillis()))
                        : null,
                m.tableClass() == null ? null : new TableClassSummary(m.tableClass(), null),
                m.deletionProtectionEnabled(),
                m.maxReadRequestUnits() == null && m.maxWriteRequestUnits() == null
                        ? null
                        : new OnDemandThroughput(orNone(m.maxReadRequestUnits()), orNone(m.maxWriteRequestUnits())));
    }

    private static long orNone(Long max) {
        return max == null ? -1 : max;
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
