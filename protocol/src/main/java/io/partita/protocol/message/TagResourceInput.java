package io.partita.protocol.message;

/** DynamoDB's {@code TagResourceInput} shape. */
public record TagResourceInput(String resourceArn, java.util.List<Tag> tags) {}
