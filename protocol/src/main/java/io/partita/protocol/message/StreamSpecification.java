package io.partita.protocol.message;

/** DynamoDB's {@code StreamSpecification}. */
public record StreamSpecification(Boolean streamEnabled, String streamViewType) {}
