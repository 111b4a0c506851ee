package io.partita.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.partita.conformance.support.PartitaExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.DescribeLimitsResponse;

/** DescribeLimits (API_DescribeLimits): the account's and a table's maximum provisioned capacity. */
@ExtendWith(PartitaExtension.class)
class DescribeLimitsTest {
    @Test
    void reportsPositiveLimits(DynamoDbClient ddb) {
        DescribeLimitsResponse limits = ddb.describeLimits(b -> {});

        assertThat(limits.accountMaxReadCapacityUnits()).isPositive();
        assertThat(limits.accountMaxWriteCapacityUnits()).isPositive();
        assertThat(limits.tableMaxReadCapacityUnits()).isPositive();
        assertThat(limits.tableMaxWriteCapacityUnits()).isPositive();
        // A table cannot be given more than the whole account.
        assertThat(limits.tableMaxReadCapacityUnits()).isLessThanOrEqualTo(limits.accountMaxReadCapacityUnits());
        assertThat(limits.tableMaxWriteCapacityUnits()).isLessThanOrEqualTo(limits.accountMaxWriteCapacityUnits());
    }
}
