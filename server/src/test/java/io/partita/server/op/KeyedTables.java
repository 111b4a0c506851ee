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
