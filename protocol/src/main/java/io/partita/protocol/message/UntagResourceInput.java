package io.partita.protocol.message;

/** DynamoDB's {@code UntagResourceInput} shape. */
public record UntagResourceInput(String resourceArn, java.util.List<String> tagKeys) {}
