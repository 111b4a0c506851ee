package io.partita.protocol.message;

/** DynamoDB's {@code ListExportsInput}. */
public record ListExportsInput(String tableArn, Integer maxResults, String nextToken) {}
