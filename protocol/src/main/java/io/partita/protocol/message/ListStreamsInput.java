package io.partita.protocol.message;

/** DynamoDB Streams' {@code ListStreamsInput}. */
public record ListStreamsInput(String tableName, Long limit, String exclusiveStartStreamArn) {}
