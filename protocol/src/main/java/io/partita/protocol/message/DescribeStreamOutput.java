package io.partita.protocol.message;

import java.math.BigDecimal;
import java.util.List;

/** DynamoDB Streams' {@code DescribeStreamOutput}. */
public record DescribeStreamOutput(StreamDescription streamDescription) {
    /** DynamoDB Streams' {@code StreamDescription}. */
    public record StreamDescription(
            String streamArn,
            String streamLabel,
            String streamStatus,
            String streamViewType,
            BigDecimal creationRequestDateTime,
            String tableName,
            List<KeySchemaElement> keySchema,
            List<Shard> shards,
            String lastEvaluatedShardId) {}

    /** DynamoDB Streams' {@code Shard}. */
    public record Shard(String shardId, SequenceNumberRange sequenceNumberRange, String parentShardId) {}

    /** DynamoDB Streams' {@code SequenceNumberRange}. */
    public record SequenceNumberRange(String startingSequenceNumber, String endingSequenceNumber) {}
}
