package io.partita.protocol.message;

/** DynamoDB's {@code TimeToLiveSpecification}. */
public record TimeToLiveSpecification(Boolean enabled, String attributeName) {}
