package io.partita.conformance;

import static io.partita.conformance.support.ApiErrors.assertValidation;
import static org.assertj.core.api.Assertions.assertThat;

import io.partita.conformance.support.PartitaExtension;
import io.partita.conformance.support.Tables;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ListTablesResponse;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * ListTables (API_ListTables): names in ascending order, {@code Limit} 1..100, paging through
 * {@code LastEvaluatedTableName}. Other tests' tables may exist, so only this test's own tables are counted.
 */
@ExtendWith(PartitaExtension.class)
class ListTablesTest {
    @Test
    void pagesThroughEveryTableOnceInAscendingOrder(DynamoDbClient ddb, Tables tables) {
        String prefix = "lt-" + UUID.randomUUID().toString().substring(0, 8);
        List<String> mine = new ArrayList<>();
        // Created out of order, so the listing order cannot come from creation order.
        for (String suffix : List.of("c", "a", "e", "b", "d")) {
            String name = prefix + "-" + suffix;
            tables.track(name);
            ddb.createTable(b -> b.tableName(name)
                    .attributeDefinitions(CreateTableTest.attr("pk", ScalarAttributeType.S))
                    .keySchema(CreateTableTest.key("pk", KeyType.HASH))
                    .billingMode(BillingMode.PAY_PER_REQUEST));
            mine.add(name);
        }
        for (String name : mine) {
            ddb.waiter().waitUntilTableExists(b -> b.tableName(name));
        }

        List<String> seen = new ArrayList<>();
        List<String> everything = new ArrayList<>();
        // The prefix sorts just before all of our names, so paging can start there.
        String start = prefix;
        int pages = 0;
        while (start != null) {
            String from = start;
            ListTablesResponse page = ddb.listTables(b -> b.limit(2).exclusiveStartTableName(from));
            pages++;
            assertThat(page.tableNames()).hasSizeLessThanOrEqualTo(2);
            everything.addAll(page.tableNames());
            page.tableNames().stream().filter(n -> n.startsWith(prefix + "-")).forEach(seen::add);
            if (page.lastEvaluatedTableName() != null) {
                assertThat(page.tableNames()).isNotEmpty();
                assertThat(page.lastEvaluatedTableName())
                        .isEqualTo(page.tableNames().get(page.tableNames().size() - 1));
            }
            boolean pastMine = !page.tableNames().isEmpty()
                    && page.tableNames().get(page.tableNames().size() - 1).compareTo(prefix + "-~") > 0;
            start = pastMine ? null : page.lastEvaluatedTableName();
        }

        assertThat(seen).containsExactly(prefix + "-a", prefix + "-b", prefix + "-c", prefix + "-d", prefix + "-e");
        assertThat(everything).isSorted().doesNotHaveDuplicates();
        assertThat(pages).isGreaterThanOrEqualTo(3);
    }

    @Test
    void limitZeroRejected(DynamoDbClient ddb) {
        assertValidation(
                "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have"
                        + " value greater than or equal to 1",
                () -> ddb.listTables(b -> b.limit(0)));
    }

    @Test
    void limitAboveHundredRejected(DynamoDbClient ddb) {
        assertValidation(
                "1 validation error detected: Value '101' at 'limit' failed to satisfy constraint: Member must have"
                        + " value less than or equal to 100",
                () -> ddb.listTables(b -> b.limit(101)));
    }
}
