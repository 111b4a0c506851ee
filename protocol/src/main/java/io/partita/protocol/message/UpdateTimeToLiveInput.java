package io.partita.protocol.message;

/** DynamoDB's {@code UpdateTimeToLiveInput}. */
public record UpdateTimeToLiveInput(String tableName, TimeToLiveSpecification timeToLiveSpecification) {}
