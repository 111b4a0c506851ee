package io.partita.protocol.message;

/** DynamoDB's {@code UpdateTimeToLiveOutput}. */
public record UpdateTimeToLiveOutput(TimeToLiveSpecification timeToLiveSpecification) {}
