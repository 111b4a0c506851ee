package io.partita.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.partita.conformance.support.PartitaExtension;
import io.partita.conformance.support.Tables;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

@ExtendWith(PartitaExtension.class)
class PutGetDeleteRoundTripTest {
    @Test
    void putThenGetThenDelete(DynamoDbClient ddb, Tables tables) {
        String table = tables.hashTable("id", ScalarAttributeType.S);
        Map<String, AttributeValue> item = Map.of(
                "id", AttributeValue.fromS("k1"),
                "n", AttributeValue.fromN("42"));
        ddb.putItem(b -> b.tableName(table).item(item));

        var got = ddb.getItem(b -> b.tableName(table).key(Map.of("id", AttributeValue.fromS("k1"))));
        assertThat(got.item()).isEqualTo(item);

        ddb.deleteItem(b -> b.tableName(table).key(Map.of("id", AttributeValue.fromS("k1"))));
        var gone = ddb.getItem(b -> b.tableName(table).key(Map.of("id", AttributeValue.fromS("k1"))));
        assertThat(gone.hasItem()).isFalse();
    }
}
