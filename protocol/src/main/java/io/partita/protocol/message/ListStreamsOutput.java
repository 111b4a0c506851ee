package io.partita.protocol.message;

import java.util.List;

/** DynamoDB Streams' {@code ListStreamsOutput}. */
public record ListStreamsOutput(List<Stream> streams, String lastEvaluatedStreamArn) {
    /** DynamoDB Streams' {@code Stream}. */
    public record Stream(String streamArn, String tableName, String streamLabel) {}
}
