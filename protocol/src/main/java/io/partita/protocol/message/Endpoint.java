package io.partita.protocol.message;

/** DynamoDB's {@code Endpoint} shape. */
public record Endpoint(String address, Long cachePeriodInMinutes) {}
