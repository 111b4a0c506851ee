package io.partita.server.op.table;

import com.fasterxml.jackson.databind.JsonNode;
import io.partita.protocol.message.DescribeLimitsOutput;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;

/** DescribeLimits: DynamoDB's default account and table quotas ("Service quotas", ServiceQuotas.html). */
public final class DescribeLimitsHandler implements OperationHandler<JsonNode, DescribeLimitsOutput> {
    static final long ACCOUNT_MAX_UNITS = 80_000;
    static final long TABLE_MAX_UNITS = 40_000;

    @Override
    public Class<JsonNode> inputType() {
        return JsonNode.class;
    }

    @Override
    public DescribeLimitsOutput handle(RequestContext context, JsonNode in) {
        return new DescribeLimitsOutput(ACCOUNT_MAX_UNITS, ACCOUNT_MAX_UNITS, TABLE_MAX_UNITS, TABLE_MAX_UNITS);
    }
}
