package io.partita.protocol.message;

/** DynamoDB's {@code ListImportsInput}. */
public record ListImportsInput(String tableArn, Integer pageSize, String nextToken) {}
