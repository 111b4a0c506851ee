package io.partita.protocol.message;

import java.util.Map;

/** DynamoDB's {@code BatchGetItemInput}. */
public record BatchGetItemInput(Map<String, KeysAndAttributes> requestItems, String returnConsumedCapacity) {}
