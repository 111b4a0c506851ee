package io.partita.protocol.message;

import java.util.List;

/** DynamoDB's {@code LocalSecondaryIndexDescription}. */
public record LocalSecondaryIndexDescription(
        String indexName,
        List<KeySchemaElement> keySchema,
        Projection projection,
        Long indexSizeBytes,
        Long itemCount,
        String indexArn) {}
