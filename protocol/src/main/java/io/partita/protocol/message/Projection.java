package io.partita.protocol.message;

import java.util.List;

/** DynamoDB's {@code Projection}: which attributes a secondary index copies. */
public record Projection(String projectionType, List<String> nonKeyAttributes) {}
