package io.partita.server.op.table;

import com.fasterxml.jackson.databind.JsonNode;
import io.partita.protocol.error.ApiException;

/**
 * Table features Partita does not implement yet. A request that asks for one is refused with a clear
 * ValidationException rather than silently creating a table without it.
 */
final class TableFeatures {
    private static final String[] NAMES = {"WarmThroughput", "ResourcePolicy"};

    private TableFeatures() {}

    static void refuseUnsupported(JsonNode... members) {
        for (int i = 0; i < members.length; i++) {
            JsonNode m = members[i];
            if (m == null || m.isNull() || (m.isContainerNode() && m.isEmpty())) {
                continue;
            }
            throw ApiException.validation(NAMES[i] + " is not supported by this version of Partita");
        }
    }
}
