package io.partita.protocol.message;

/** DynamoDB Streams' {@code GetShardIteratorOutput}. */
public record GetShardIteratorOutput(String shardIterator) {}
