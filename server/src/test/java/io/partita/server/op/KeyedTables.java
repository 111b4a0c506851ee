package io.partita.server.op;

import io.partita.protocol.message.AttributeDefinition;
import io.partita.protocol.model.KeySchema;
import io.partita.protocol.model.ScalarType;
import io.partita.storage.table.TableMetadata;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** Tables for tests that run handlers on a store directly, with no server in front. */
public final class KeyedTables {
    private KeyedTables() {}

    /**
     * An active global secondary index {@code name} projecting every attribute, keyed by string attribute {@code hash}
     * and, unless null, number attribute {@code range}, with no capacity of its own (an on-demand table's).
     */
    public static io.partita.storage.index.IndexDefinition globalIndex(String name, String hash, String range) {
        return new io.partita.storage.index.IndexDefinition(
                name,
                UUID.randomUUID().toString(),
                true,
                List.of(new KeySchema.KeyAttribute(hash, ScalarType.S)),
                range == null ? List.of() : List.of(new KeySchema.KeyAttribute(range, ScalarType.N)),
                io.partita.storage.index.IndexDefinition.ALL,
                List.of(),
                0,
                0,
                null,
                null,
                "ACTIVE",
                false,
                0,
                null,
                null);
    }

    /** An on-demand table {@code name} whose key is the string attribute {@code id}. */
    public static TableMetadata byId(String name) {
        return TableMetadata.create(
                name,
                UUID.randomUUID().toString(),
                new KeySchema(new KeySchema.KeyAttribute("id", ScalarType.S), null),
                List.of(new AttributeDefinition("id", "S")),
                TableMetadata.PAY_PER_REQUEST,
                0,
                0,
                Clock.systemUTC().millis(),
                null,
                false,
                Map.of());
    }
}
