package io.partita.server.op.table;

import com.fasterxml.jackson.databind.JsonNode;
import io.partita.protocol.message.DescribeEndpointsOutput;
import io.partita.protocol.message.Endpoint;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import java.util.List;

/** DescribeEndpoints: this server's own address, so an SDK with endpoint discovery on keeps talking to it. */
public final class DescribeEndpointsHandler implements OperationHandler<JsonNode, DescribeEndpointsOutput> {
    static final long CACHE_PERIOD_MINUTES = 1440;

    @Override
    public Class<JsonNode> inputType() {
        return JsonNode.class;
    }

    @Override
    public DescribeEndpointsOutput handle(RequestContext context, JsonNode in) {
        String address = context.host() != null ? context.host() : "dynamodb." + context.region() + ".amazonaws.com";
        return new DescribeEndpointsOutput(List.of(new Endpoint(address, CACHE_PERIOD_MINUTES)));
    }
}
