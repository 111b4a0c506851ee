package io.partita.storage;

import io.partita.protocol.message.AttributeDefinition;
import io.partita.protocol.model.KeySchema;
import io.partita.storage.table.TableMetadata;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** Table metadata for storage tests: a fresh id, attribute definitions from the key schema. */
public final class TestTables {
    private TestTables() {}

    public static TableMetadata onDemand(String name, KeySchema schema) {
        return create(name, schema, TableMetadata.PAY_PER_REQUEST, 0, 0, Map.of());
    }

    public static TableMetadata provisioned(String name, KeySchema schema, long rcu, long wcu) {
        return create(name, schema, TableMetadata.PROVISIONED, rcu, wcu, Map.of());
    }

    public static TableMetadata create(
            String name, KeySchema schema, String billingMode, long rcu, long wcu, Map<String, String> tags) {
        List<AttributeDefinition> definitions = new ArrayList<>();
        for (KeySchema.KeyAttribute k : schema.attributes()) {
            definitions.add(new AttributeDefinition(k.name(), k.type().name()));
        }
        return TableMetadata.create(
                name,
                UUID.randomUUID().toString(),
                schema,
                definitions,
                billingMode,
                rcu,
                wcu,
                1_700_000_000_000L,
                null,
                false,
                tags);
    }
}
