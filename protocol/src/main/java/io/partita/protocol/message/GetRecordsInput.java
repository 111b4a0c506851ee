package io.partita.protocol.message;

/** DynamoDB Streams' {@code GetRecordsInput}. */
public record GetRecordsInput(String shardIterator, Long limit) {}
