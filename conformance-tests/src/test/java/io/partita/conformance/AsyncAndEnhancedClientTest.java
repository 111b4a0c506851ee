package io.partita.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static software.amazon.awssdk.enhanced.dynamodb.mapper.StaticAttributeTags.primaryPartitionKey;
import static software.amazon.awssdk.enhanced.dynamodb.mapper.StaticAttributeTags.primarySortKey;

import io.partita.conformance.support.Endpoint;
import io.partita.conformance.support.PartitaExtension;
import io.partita.conformance.support.Tables;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbEnhancedClient;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbTable;
import software.amazon.awssdk.enhanced.dynamodb.Key;
import software.amazon.awssdk.enhanced.dynamodb.mapper.StaticTableSchema;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * The same item operations through the SDK's other front doors: the asynchronous client (Netty HTTP client) and the
 * Enhanced Client's object mapper.
 */
@ExtendWith(PartitaExtension.class)
class AsyncAndEnhancedClientTest {
    @Test
    void asyncClientRoundTrip(Tables tables) throws Exception {
        String table = tables.hashTable("id", ScalarAttributeType.S);
        Map<String, AttributeValue> key = Map.of("id", AttributeValue.fromS("async"));
        Map<String, AttributeValue> item = Map.of(
                "id", AttributeValue.fromS("async"),
                "n", AttributeValue.fromN("1.50"),
                "l", AttributeValue.fromL(List.of(AttributeValue.fromBool(true))));

        try (DynamoDbAsyncClient async = Endpoint.asyncClient()) {
            async.putItem(b -> b.tableName(table).item(item)).get(30, TimeUnit.SECONDS);

            GetItemResponse got = async.getItem(b -> b.tableName(table).key(key).consistentRead(true))
                    .get(30, TimeUnit.SECONDS);
            assertThat(got.item().get("n").n()).isEqualTo("1.5");
            assertThat(got.item().get("l")).isEqualTo(item.get("l"));

            var deleted = async.deleteItem(b -> b.tableName(table).key(key).returnValues(ReturnValue.ALL_OLD))
                    .get(30, TimeUnit.SECONDS);
            assertThat(deleted.attributes().get("id")).isEqualTo(key.get("id"));

            PutItemResponse again = async.putItem(
                            b -> b.tableName(table).item(item).returnValues(ReturnValue.ALL_OLD))
                    .get(30, TimeUnit.SECONDS);
            assertThat(again.hasAttributes()).isFalse();
        }
    }

    /** A plain mutable class mapped with a StaticTableSchema (no bean introspection needed). */
    static final class Order {
        private String customer;
        private Integer number;
        private String status;
        private Double total;
        private List<String> tags;

        String getCustomer() {
            return customer;
        }

        void setCustomer(String customer) {
            this.customer = customer;
        }

        Integer getNumber() {
            return number;
        }

        void setNumber(Integer number) {
            this.number = number;
        }

        String getStatus() {
            return status;
        }

        void setStatus(String status) {
            this.status = status;
        }

        Double getTotal() {
            return total;
        }

        void setTotal(Double total) {
            this.total = total;
        }

        List<String> getTags() {
            return tags;
        }

        void setTags(List<String> tags) {
            this.tags = tags;
        }
    }

    private static final StaticTableSchema<Order> ORDER_SCHEMA = StaticTableSchema.builder(Order.class)
            .newItemSupplier(Order::new)
            .addAttribute(
                    String.class,
                    a -> a.name("customer")
                            .getter(Order::getCustomer)
                            .setter(Order::setCustomer)
                            .tags(primaryPartitionKey()))
            .addAttribute(
                    Integer.class,
                    a -> a.name("number")
                            .getter(Order::getNumber)
                            .setter(Order::setNumber)
                            .tags(primarySortKey()))
            .addAttribute(
                    String.class, a -> a.name("status").getter(Order::getStatus).setter(Order::setStatus))
            .addAttribute(
                    Double.class, a -> a.name("total").getter(Order::getTotal).setter(Order::setTotal))
            .addAttribute(
                    software.amazon.awssdk.enhanced.dynamodb.EnhancedType.listOf(String.class),
                    a -> a.name("tags").getter(Order::getTags).setter(Order::setTags))
            .build();

    @Test
    void enhancedClientRoundTrip(DynamoDbClient ddb, Tables tables) {
        String tableName = tables.rangeTable("customer", ScalarAttributeType.S, "number", ScalarAttributeType.N);
        DynamoDbEnhancedClient enhanced =
                DynamoDbEnhancedClient.builder().dynamoDbClient(ddb).build();
        DynamoDbTable<Order> table = enhanced.table(tableName, ORDER_SCHEMA);
        Order order = new Order();
        order.setCustomer("alice");
        order.setNumber(7);
        order.setStatus("OPEN");
        order.setTotal(12.25);
        order.setTags(List.of("b", "a", "b"));

        table.putItem(order);
        Key key = Key.builder().partitionValue("alice").sortValue(7).build();
        Order got = table.getItem(r -> r.key(key).consistentRead(true));

        assertThat(got).isNotNull();
        assertThat(got.getCustomer()).isEqualTo("alice");
        assertThat(got.getNumber()).isEqualTo(7);
        assertThat(got.getStatus()).isEqualTo("OPEN");
        assertThat(got.getTotal()).isEqualTo(12.25);
        assertThat(got.getTags()).containsExactly("b", "a", "b");

        // The low-level view of the same item: the mapper wrote plain attribute values.
        var raw = ddb.getItem(b -> b.tableName(tableName)
                        .key(Map.of("customer", AttributeValue.fromS("alice"), "number", AttributeValue.fromN("7")))
                        .consistentRead(true))
                .item();
        assertThat(raw.get("total").n()).isEqualTo("12.25");

        Order deleted = table.deleteItem(key);
        assertThat(deleted.getStatus()).isEqualTo("OPEN");
        assertThat(table.getItem(r -> r.key(key).consistentRead(true))).isNull();
    }
}
