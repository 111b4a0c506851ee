package io.partita.conformance;

import static io.partita.conformance.support.AttributeValues.item;
import static io.partita.conformance.support.AttributeValues.n;
import static io.partita.conformance.support.AttributeValues.s;
import static org.assertj.core.api.Assertions.assertThat;

import io.partita.server.embedded.EmbeddedPartita;
import io.partita.server.junit.WithPartita;
import java.util.Map;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The JUnit 5 extension users annotate a test class with ({@code @WithPartita}): one in-memory server for the class,
 * the declared tables created, and the server and its clients given to test methods.
 */
@Tag("partita-only")
@WithPartita(tables = "tables/orders.json")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class JUnitExtensionTest {
    @Test
    @Order(1)
    void theDeclaredTablesAreThereAndTheClientsReachThem(DynamoDbClient ddb, DynamoDbAsyncClient async)
            throws Exception {
        assertThat(ddb.listTables().tableNames()).containsExactly("customers", "orders");
        ddb.putItem(p -> p.tableName("orders").item(item("customer", s("ann"), "placed", n("1"), "status", s("open"))));
        assertThat(async.getItem(g -> g.tableName("orders").key(Map.of("customer", s("ann"), "placed", n("1"))))
                        .get()
                        .item())
                .containsEntry("status", s("open"));
    }

    @Test
    @Order(2)
    void oneServerForTheClassWithItsControls(DynamoDbClient ddb, EmbeddedPartita partita) {
        // The item the first test wrote is still there: the server lives as long as the class.
        partita.awaitIndexes();
        var open = ddb.query(q -> q.tableName("orders")
                .indexName("by-status")
                .keyConditionExpression("#s = :s")
                .expressionAttributeNames(Map.of("#s", "status"))
                .expressionAttributeValues(Map.of(":s", s("open"))));
        assertThat(open.count()).isEqualTo(1);
    }

    /** A bean of the "customers" table, for the enhanced client. */
    @software.amazon.awssdk.enhanced.dynamodb.mapper.annotations.DynamoDbBean
    public static class Customer {
        private String id;
        private String name;

        @software.amazon.awssdk.enhanced.dynamodb.mapper.annotations.DynamoDbPartitionKey
        public String getId() {
            return id;
        }

        public void setId(String id) {
            this.id = id;
        }

        public String getName() {
            return name;
        }

        public void setName(String name) {
            this.name = name;
        }
    }

    @Test
    @Order(3)
    void theEnhancedClientsAreInjectedToo(
            software.amazon.awssdk.enhanced.dynamodb.DynamoDbEnhancedClient enhanced,
            software.amazon.awssdk.enhanced.dynamodb.DynamoDbEnhancedAsyncClient enhancedAsync)
            throws Exception {
        var schema = software.amazon.awssdk.enhanced.dynamodb.TableSchema.fromBean(Customer.class);
        var customers = enhanced.table("customers", schema);
        Customer ada = new Customer();
        ada.setId("c-1");
        ada.setName("Ada");
        customers.putItem(ada);
        var key = software.amazon.awssdk.enhanced.dynamodb.Key.builder()
                .partitionValue("c-1")
                .build();
        assertThat(enhancedAsync.table("customers", schema).getItem(key).get().getName())
                .isEqualTo("Ada");
    }
}
