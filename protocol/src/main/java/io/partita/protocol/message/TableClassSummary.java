package io.partita.protocol.message;

/** DynamoDB's {@code TableClassSummary} shape. */
public record TableClassSummary(String tableClass, java.math.BigDecimal lastUpdateDateTime) {}
