package io.partita.protocol.message;

/** DynamoDB Streams' {@code GetShardIteratorInput}. */
public record GetShardIteratorInput(
        String streamArn, String shardId, String shardIteratorType, String sequenceNumber) {}
