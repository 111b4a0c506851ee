package io.partita.conformance.support;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * Creates uniquely named tables for one test, waits until they are ACTIVE, and deletes them afterwards (through
 * {@link PartitaExtension}), so tests never share state and can run against a real account.
 */
public final class Tables {
    private final DynamoDbClient client;
    private final List<String> created = new ArrayList<>();

    public Tables(DynamoDbClient client) {
        this.client = client;
    }

    /** A fresh table name that no other test uses. */
    public static String uniqueName(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 12);
    }

    /** An on-demand table with a partition key only. */
    public String hashTable(String pk, ScalarAttributeType type) {
        return create(CreateTableRequest.builder()
                .attributeDefinitions(AttributeDefinition.builder()
                        .attributeName(pk)
                        .attributeType(type)
                        .build())
                .keySchema(KeySchemaElement.builder()
                        .attributeName(pk)
                        .keyType(KeyType.HASH)
                        .build())
                .billingMode(BillingMode.PAY_PER_REQUEST));
    }

    /** An on-demand table with a partition key and a sort key. */
    public String rangeTable(String pk, ScalarAttributeType pkType, String sk, ScalarAttributeType skType) {
        return create(CreateTableRequest.builder()
                .attributeDefinitions(
                        AttributeDefinition.builder()
                                .attributeName(pk)
                                .attributeType(pkType)
                                .build(),
                        AttributeDefinition.builder()
                                .attributeName(sk)
                                .attributeType(skType)
                                .build())
                .keySchema(
                        KeySchemaElement.builder()
                                .attributeName(pk)
                                .keyType(KeyType.HASH)
                                .build(),
                        KeySchemaElement.builder()
                                .attributeName(sk)
                                .keyType(KeyType.RANGE)
                                .build())
                .billingMode(BillingMode.PAY_PER_REQUEST));
    }

    /** Creates the table described by {@code request} under a unique name (any name set is replaced). */
    public String create(CreateTableRequest.Builder request) {
        String name = uniqueName("conformance");
        client.createTable(request.tableName(name).build());
        created.add(name);
        client.waiter().waitUntilTableExists(b -> b.tableName(name));
        return name;
    }

    /** Remembers a table created by the test itself, so it is deleted afterwards. */
    public void track(String name) {
        created.add(name);
    }

    void deleteAll() {
        for (String name : created) {
            try {
                client.updateTable(b -> b.tableName(name).deletionProtectionEnabled(false));
            } catch (RuntimeException ignored) {
                // The table may be gone already, or never had protection; deleting below is what matters.
            }
            try {
                client.deleteTable(b -> b.tableName(name));
            } catch (ResourceNotFoundException ignored) {
                // The test deleted it itself.
            }
        }
        created.clear();
    }
}
