package io.partita.conformance.support;

import java.util.Collection;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Loads test data with one PutItem per item, so the Query, Scan and BatchGetItem tests depend on PutItem only and
 * not on BatchWriteItem, which has tests of its own.
 */
public final class Loader {
    private Loader() {}

    public static void putAll(DynamoDbClient ddb, String table, Collection<Map<String, AttributeValue>> items) {
        for (Map<String, AttributeValue> item : items) {
            ddb.putItem(r -> r.tableName(table).item(item));
        }
    }
}
