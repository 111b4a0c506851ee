package io.partita.server.op.stream;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.message.DescribeStreamInput;
import io.partita.protocol.message.DescribeStreamOutput;
import io.partita.protocol.message.KeySchemaElement;
import io.partita.protocol.model.KeySchema;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.stream.StreamDefinition;
import io.partita.storage.stream.TableStreams;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

/**
 * DescribeStream: the stream's status, view type and shards, each with its parent (a split's children name the shard
 * they came from) and its range of sequence numbers, ended once the shard is closed; a page of up to 100 shards,
 * optionally only the children of one ({@code ShardFilter} {@code CHILD_SHARDS}).
 */
public final class DescribeStreamHandler implements OperationHandler<DescribeStreamInput, DescribeStreamOutput> {
    static final long MAX_LIMIT = 100;

    private final StorageEngine storage;

    public DescribeStreamHandler(StorageEngine storage) {
        this.storage = storage;
    }

    @Override
    public Class<DescribeStreamInput> inputType() {
        return DescribeStreamInput.class;
    }

    @Override
    public DescribeStreamOutput handle(RequestContext context, DescribeStreamInput in) {
        ConstraintSet c = new ConstraintSet();
        c.notNull("streamArn", in.streamArn())
                .length("streamArn", in.streamArn(), 37, 1024)
                .atLeast("limit", in.limit(), 1)
                .atMost("limit", in.limit(), MAX_LIMIT)
                .length("exclusiveStartShardId", in.exclusiveStartShardId(), 28, 65);
        if (in.shardFilter() != null) {
            c.enumValue("shardFilter.type", in.shardFilter().type(), List.of("CHILD_SHARDS"))
                    .length("shardFilter.shardId", in.shardFilter().shardId(), 28, 65);
        }
        c.check();
        StreamLookup.Found found = StreamLookup.stream(context, storage, in.streamArn());
        StreamDefinition d = found.stream();
        String label = d.label();
        String parentFilter = null;
        if (in.shardFilter() != null) {
            if (in.shardFilter().shardId() == null) {
                throw ApiException.validation(
                        "ShardFilter ShardId must be provided when ShardFilter Type is" + " CHILD_SHARDS");
            }
            parentFilter = in.shardFilter().shardId();
        }
        List<DescribeStreamOutput.Shard> all = new ArrayList<>();
        io.partita.storage.table.HashRange held = found.table().metadata().hashRange();
        for (TableStreams.StreamShard s : storage.streams().shards(found.table(), d)) {
            if (held != null && !overlaps(s.shard(), held) && s.shard().lastAssigned() <= s.startAfter()) {
                // One range of a table cut by ranges (docs/CLUSTER.md): a partition of the store's that holds none of
                // its range, and no record of the stream, is not one of the stream's shards: another group's is.
                continue;
            }
            String parent = s.shard().parentId() == null
                    ? null
                    : StreamTokens.shardId(label, Integer.parseInt(s.shard().parentId()));
            if (parentFilter != null && !parentFilter.equals(parent)) {
                continue;
            }
            int n = s.shard().number();
            long first = Math.max(s.startAfter(), s.shard().floor()) + 1;
            all.add(new DescribeStreamOutput.Shard(
                    StreamTokens.shardId(label, n),
                    new DescribeStreamOutput.SequenceNumberRange(
                            StreamTokens.sequenceNumber(n, first),
                            s.closed() ? StreamTokens.sequenceNumber(n, s.end()) : null),
                    parent));
        }
        Page<DescribeStreamOutput.Shard> page =
                Page.of(all, DescribeStreamOutput.Shard::shardId, in.exclusiveStartShardId(), in.limit(), MAX_LIMIT);
        KeySchema schema = found.table().metadata().keySchema();
        List<KeySchemaElement> keys = new ArrayList<>();
        keys.add(new KeySchemaElement(schema.partitionKey().name(), "HASH"));
        if (schema.hasSortKey()) {
            keys.add(new KeySchemaElement(schema.sortKey().name(), "RANGE"));
        }
        return new DescribeStreamOutput(new DescribeStreamOutput.StreamDescription(
                found.arn(),
                label,
                d.enabled() ? "ENABLED" : "DISABLED",
                d.viewType(),
                BigDecimal.valueOf(d.createdMillis(), 3),
                found.table().metadata().name(),
                keys,
                page.items(),
                page.lastEvaluated()));
    }

    /** Whether partition {@code shard}'s hashes and {@code range}'s have one in common. */
    private static boolean overlaps(io.partita.storage.feed.FeedShard shard, io.partita.storage.table.HashRange range) {
        return Long.compareUnsigned(shard.start(), range.last()) <= 0
                && Long.compareUnsigned(range.first(), shard.end()) <= 0;
    }
}
