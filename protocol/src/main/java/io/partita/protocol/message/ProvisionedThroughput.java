package io.partita.protocol.message;

/** DynamoDB's {@code ProvisionedThroughput} shape. */
public record ProvisionedThroughput(Long readCapacityUnits, Long writeCapacityUnits) {}
