package io.partita.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.partita.conformance.support.PartitaExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.DescribeEndpointsResponse;
import software.amazon.awssdk.services.dynamodb.model.Endpoint;

/** DescribeEndpoints (API_DescribeEndpoints, API_Endpoint): addresses an SDK may cache for endpoint discovery. */
@ExtendWith(PartitaExtension.class)
class DescribeEndpointsTest {
    @Test
    void reportsAnEndpointWithCachePeriod(DynamoDbClient ddb) {
        DescribeEndpointsResponse response = ddb.describeEndpoints(b -> {});

        assertThat(response.endpoints()).isNotEmpty();
        for (Endpoint e : response.endpoints()) {
            assertThat(e.address()).isNotBlank();
            assertThat(e.cachePeriodInMinutes()).isPositive();
        }
    }
}
