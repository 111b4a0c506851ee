package io.partita.protocol.message;

import java.util.List;

/** DynamoDB's {@code LocalSecondaryIndex}, as CreateTable takes it. */
public record LocalSecondaryIndex(String indexName, List<KeySchemaElement> keySchema, Projection projection) {}
