package io.partita.protocol.message;

/** DynamoDB's {@code ListTagsOfResourceOutput} shape. */
public record ListTagsOfResourceOutput(java.util.List<Tag> tags, String nextToken) {}
