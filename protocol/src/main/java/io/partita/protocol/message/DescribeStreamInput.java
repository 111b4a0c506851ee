package io.partita.protocol.message;

/** DynamoDB Streams' {@code DescribeStreamInput}. */
public record DescribeStreamInput(String streamArn, Long limit, String exclusiveStartShardId, ShardFilter shardFilter) {
    /** DynamoDB Streams' {@code ShardFilter}. */
    public record ShardFilter(String type, String shardId) {}
}
