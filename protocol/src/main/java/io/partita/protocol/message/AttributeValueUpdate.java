package io.partita.protocol.message;

import io.partita.protocol.model.AttributeValue;

/** DynamoDB's legacy {@code AttributeValueUpdate} (the {@code AttributeUpdates} of UpdateItem). */
public record AttributeValueUpdate(AttributeValue value, String action) {}
