package io.partita.server.op.stream;

import io.partita.protocol.error.ApiException;
import io.partita.server.op.TableNames;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.stream.StreamDefinition;
import io.partita.storage.stream.TableStreams;
import io.partita.storage.table.TableCatalog.Table;
import java.util.List;

/** Finds what a stream ARN or shard id names, with DynamoDB Streams' errors for what does not exist. */
final class StreamLookup {
    private StreamLookup() {}

    static final String TRIMMED = "The data you are trying to access has been trimmed";

    /** A live stream: its table and its definition. */
    record Found(Table table, StreamDefinition stream, String arn) {}

    static Found stream(RequestContext context, StorageEngine storage, String arn) {
        StreamTokens.StreamArn parsed = StreamTokens.parseStreamArn(arn);
        if (parsed == null) {
            throw ApiException.validation("Invalid StreamArn");
        }
        if (context.isolated() && !parsed.account().equals(context.accountId())) {
            throw TableNames.notAuthorized(context, arn);
        }
        Table t = storage.tables().find(parsed.tableName());
        if (t != null) {
            storage.streams().expire(t);
        }
        StreamDefinition d = t == null ? null : t.metadata().stream(parsed.label());
        if (d == null || !arn.equals(arn(context, t, d))) {
            throw ApiException.resourceNotFound("Requested resource not found: Stream: " + arn + " not found");
        }
        return new Found(t, d, arn);
    }

    static String arn(RequestContext context, Table t, StreamDefinition d) {
        return StreamTokens.streamArn(TableNames.arn(context, t.metadata().name()), d.label());
    }

    /** The stream's shard {@code shardId}, or DynamoDB's ResourceNotFoundException. */
    static TableStreams.StreamShard shard(StorageEngine storage, Found found, String shardId) {
        int partition = StreamTokens.parseShardId(found.stream().label(), shardId);
        return shard(storage, found, partition, shardId);
    }

    static TableStreams.StreamShard shard(StorageEngine storage, Found found, int partition, String shardId) {
        if (partition >= 0) {
            List<TableStreams.StreamShard> shards = storage.streams().shards(found.table(), found.stream());
            for (TableStreams.StreamShard s : shards) {
                if (s.shard().number() == partition) {
                    return s;
                }
            }
        }
        throw ApiException.resourceNotFound("Requested resource not found: Shard does not exist");
    }
}
