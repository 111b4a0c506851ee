package io.partita.protocol.message;

/** DynamoDB's {@code BillingModeSummary} shape. */
public record BillingModeSummary(String billingMode, java.math.BigDecimal lastUpdateToPayPerRequestDateTime) {}
