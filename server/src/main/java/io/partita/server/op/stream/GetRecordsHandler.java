package io.partita.server.op.stream;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.message.GetRecordsInput;
import io.partita.protocol.message.GetRecordsOutput;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.ItemSize;
import io.partita.protocol.model.KeySchema;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.feed.ChangeCause;
import io.partita.storage.feed.ChangeRecord;
import io.partita.storage.stream.StreamDefinition;
import io.partita.storage.stream.TableStreams;
import io.partita.storage.table.TableCatalog.Table;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * GetRecords: up to 1,000 records or 1 MB of one shard after the iterator's position, in DynamoDB Streams' format,
 * and the iterator for the rest; none once a closed shard has been read to its end ("GetRecords": "If NextShardIterator
 * is null, the shard has been closed and the requested iterator does not return any more data"). Iterators expire 15
 * minutes after they were issued.
 */
public final class GetRecordsHandler implements OperationHandler<GetRecordsInput, GetRecordsOutput> {
    static final long MAX_LIMIT = 1000;
    static final long MAX_BYTES = 1024 * 1024;
    static final long ITERATOR_MILLIS = 15 * 60_000L;

    private final StorageEngine storage;

    public GetRecordsHandler(StorageEngine storage) {
        this.storage = storage;
    }

    @Override
    public Class<GetRecordsInput> inputType() {
        return GetRecordsInput.class;
    }

    @Override
    public GetRecordsOutput handle(RequestContext context, GetRecordsInput in) {
        ConstraintSet c = new ConstraintSet();
        c.notNull("shardIterator", in.shardIterator())
                .length("shardIterator", in.shardIterator(), 1, 2048)
                .atLeast("limit", in.limit(), 1)
                .atMost("limit", in.limit(), MAX_LIMIT);
        c.check();
        StreamTokens.Iterator it = StreamTokens.parseIterator(in.shardIterator());
        long now = context.clock().millis();
        if (now - it.issuedMillis() > ITERATOR_MILLIS) {
            // The message of the API's model (ExpiredIteratorException); DynamoDB's own answer was not found quoted.
            throw new ApiException(
                    ErrorCode.EXPIRED_ITERATOR, "The provided iterator exceeds the maximum age allowed.");
        }
        Table table = storage.tables().find(it.tableName());
        StreamDefinition d = table == null ? null : table.metadata().stream(it.label());
        if (d == null) {
            throw ApiException.resourceNotFound("Requested resource not found: Stream: " + it.label() + " not found");
        }
        StreamLookup.Found found = new StreamLookup.Found(table, d, StreamLookup.arn(context, table, d));
        TableStreams.StreamShard shard = StreamLookup.shard(storage, found, it.partition(), "");
        int limit = in.limit() == null ? (int) MAX_LIMIT : in.limit().intValue();
        TableStreams.Read read = storage.streams().read(table, shard, it.after(), limit);
        List<GetRecordsOutput.Record> records = new ArrayList<>();
        long bytes = 0;
        long last = Math.max(it.after(), shard.startAfter());
        boolean cut = false;
        ChangeRecord lastReturned = null;
        for (ChangeRecord r : read.records()) {
            if (r.cause() == ChangeCause.MOVE) {
                // A range's move in a cluster (docs/CLUSTER.md) copied or deleted the item: the table did not change,
                // and its stream has no record of it, as DynamoDB's has none of a partition it moves.
                last = r.sequence();
                continue;
            }
            GetRecordsOutput.Record out =
                    record(context, table, d, shard.shard().number(), r);
            bytes += out.dynamodb().sizeBytes();
            if (!records.isEmpty() && bytes > MAX_BYTES) {
                cut = true;
                break;
            }
            records.add(out);
            last = r.sequence();
            lastReturned = r;
        }
        boolean caughtUp = !cut && read.records().size() < limit;
        storage.streams().readerAt(table, d, shard, lastReturned, caughtUp);
        String next = read.exhausted() && !cut
                ? null
                : new StreamTokens.Iterator(
                                table.metadata().name(),
                                d.label(),
                                shard.shard().number(),
                                last,
                                now)
                        .print();
        return new GetRecordsOutput(records, next);
    }

    /** One change record in DynamoDB Streams' format, with the images the stream's view type keeps. */
    static GetRecordsOutput.Record record(
            RequestContext context, Table table, StreamDefinition d, int partition, ChangeRecord r) {
        return record(context.region(), table, d, partition, r);
    }

    /** As {@link #record(RequestContext, Table, StreamDefinition, int, ChangeRecord)}, naming {@code region}. */
    static GetRecordsOutput.Record record(
            String region, Table table, StreamDefinition d, int partition, ChangeRecord r) {
        Map<String, AttributeValue> oldImage = r.oldImage();
        Map<String, AttributeValue> newImage = r.newImage();
        KeySchema schema = table.metadata().keySchema();
        Map<String, AttributeValue> any = newImage != null ? newImage : oldImage;
        Map<String, AttributeValue> keys = schema.keyMap(schema.keyOfItem(any));
        String view = d.viewType();
        Map<String, AttributeValue> newShown =
                view.equals("NEW_IMAGE") || view.equals("NEW_AND_OLD_IMAGES") ? newImage : null;
        Map<String, AttributeValue> oldShown =
                view.equals("OLD_IMAGE") || view.equals("NEW_AND_OLD_IMAGES") ? oldImage : null;
        long size = ItemSize.of(keys)
                + (newShown == null ? 0 : ItemSize.of(newShown))
                + (oldShown == null ? 0 : ItemSize.of(oldShown));
        String sequence = StreamTokens.sequenceNumber(partition, r.sequence());
        String eventName = switch (r.kind()) {
            case INSERT -> "INSERT";
            case MODIFY -> "MODIFY";
            case REMOVE -> "REMOVE";
        };
        GetRecordsOutput.Identity identity = r.cause() == ChangeCause.TTL
                ? new GetRecordsOutput.Identity("dynamodb.amazonaws.com", "Service")
                : null;
        return new GetRecordsOutput.Record(
                UUID.nameUUIDFromBytes((table.metadata().id() + "/" + d.label() + "/" + sequence).getBytes())
                        .toString()
                        .replace("-", ""),
                eventName,
                "1.1",
                "aws:dynamodb",
                region,
                new GetRecordsOutput.StreamRecord(
                        BigDecimal.valueOf(r.timeMillis() / 1000), keys, newShown, oldShown, sequence, size, view),
                identity);
    }
}
