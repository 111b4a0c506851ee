package io.partita.protocol.message;

/** DynamoDB's {@code ListTagsOfResourceInput} shape. */
public record ListTagsOfResourceInput(String resourceArn, String nextToken) {}
