package io.partita.protocol.message;

/** DynamoDB's {@code DescribeLimitsOutput} shape. */
public record DescribeLimitsOutput(
        Long accountMaxReadCapacityUnits,
        Long accountMaxWriteCapacityUnits,
        Long tableMaxReadCapacityUnits,
        Long tableMaxWriteCapacityUnits) {}
