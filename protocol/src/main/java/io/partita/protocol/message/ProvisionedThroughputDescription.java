package io.partita.protocol.message;

/** DynamoDB's {@code ProvisionedThroughputDescription} shape. */
public record ProvisionedThroughputDescription(
        java.math.BigDecimal lastIncreaseDateTime,
        java.math.BigDecimal lastDecreaseDateTime,
        Long numberOfDecreasesToday,
        Long readCapacityUnits,
        Long writeCapacityUnits) {}
