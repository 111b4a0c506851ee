package io.partita.server.op.stream;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.message.GetShardIteratorInput;
import io.partita.protocol.message.GetShardIteratorOutput;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.stream.TableStreams;
import java.util.List;

/**
 * GetShardIterator: a position in one shard of a stream, {@code TRIM_HORIZON} (the oldest record kept), {@code
 * LATEST} (after the newest), or at or after a sequence number; valid for 15 minutes.
 */
public final class GetShardIteratorHandler implements OperationHandler<GetShardIteratorInput, GetShardIteratorOutput> {
    static final List<String> TYPES = List.of("TRIM_HORIZON", "LATEST", "AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER");

    private final StorageEngine storage;

    public GetShardIteratorHandler(StorageEngine storage) {
        this.storage = storage;
    }

    @Override
    public Class<GetShardIteratorInput> inputType() {
        return GetShardIteratorInput.class;
    }

    @Override
    public GetShardIteratorOutput handle(RequestContext context, GetShardIteratorInput in) {
        ConstraintSet c = new ConstraintSet();
        c.notNull("streamArn", in.streamArn())
                .length("streamArn", in.streamArn(), 37, 1024)
                .notNull("shardId", in.shardId())
                .length("shardId", in.shardId(), 28, 65)
                .notNull("shardIteratorType", in.shardIteratorType())
                .enumValue("shardIteratorType", in.shardIteratorType(), TYPES)
                .length("sequenceNumber", in.sequenceNumber(), 21, 40);
        c.check();
        String type = in.shardIteratorType();
        boolean bySequence = type.endsWith("SEQUENCE_NUMBER");
        // The texts of these two are Partita's: DynamoDB's answers to them were not found quoted anywhere.
        if (bySequence && in.sequenceNumber() == null) {
            throw ApiException.validation("Must provide a SequenceNumber when ShardIteratorType is " + type);
        }
        if (!bySequence && in.sequenceNumber() != null) {
            throw ApiException.validation("SequenceNumber must not be provided when ShardIteratorType is " + type);
        }
        StreamLookup.Found found = StreamLookup.stream(context, storage, in.streamArn());
        TableStreams.StreamShard s = StreamLookup.shard(storage, found, in.shardId());
        int n = s.shard().number();
        long oldest = Math.max(s.startAfter(), s.shard().floor());
        long after;
        switch (type) {
            case "TRIM_HORIZON" -> after = oldest;
            case "LATEST" ->
                after = s.closed() ? s.end() : Math.max(oldest, s.shard().visible() - 1);
            default -> {
                long sequence = StreamTokens.parseSequenceNumber(n, in.sequenceNumber());
                if (sequence < 0 || sequence <= s.startAfter() || (s.closed() && sequence > s.end())) {
                    throw ApiException.validation(
                            "Invalid SequenceNumber " + in.sequenceNumber() + " for shard " + in.shardId());
                }
                after = type.equals("AT_SEQUENCE_NUMBER") ? sequence - 1 : sequence;
                if (after < s.shard().floor()) {
                    throw new ApiException(ErrorCode.TRIMMED_DATA_ACCESS, StreamLookup.TRIMMED);
                }
            }
        }
        return new GetShardIteratorOutput(new StreamTokens.Iterator(
                        found.table().metadata().name(),
                        found.stream().label(),
                        n,
                        after,
                        context.clock().millis())
                .print());
    }
}
