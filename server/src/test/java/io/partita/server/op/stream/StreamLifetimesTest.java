package io.partita.server.op.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.message.AttributeDefinition;
import io.partita.protocol.message.DescribeStreamInput;
import io.partita.protocol.message.GetRecordsInput;
import io.partita.protocol.message.GetShardIteratorInput;
import io.partita.protocol.message.ListStreamsInput;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.KeySchema;
import io.partita.protocol.model.PrimaryKey;
import io.partita.protocol.model.ScalarType;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageConfig;
import io.partita.storage.StorageEngine;
import io.partita.storage.capacity.CapacityConfig;
import io.partita.storage.capacity.ThroughputMode;
import io.partita.storage.item.ConditionalWrite;
import io.partita.storage.item.WriteDecision;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.table.TableMetadata;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The times of DynamoDB Streams, with a clock the test moves instead of waiting: an iterator expires 15 minutes after
 * it was issued (ExpiredIteratorException), records are kept 24 hours (then TrimmedDataAccessException for a position
 * among them, and TRIM_HORIZON starts after them), and a disabled stream is listed for 24 hours, then gone.
 */
class StreamLifetimesTest {
    static final class MovingClock extends Clock {
        final AtomicLong millis =
                new AtomicLong(Instant.parse("2026-06-01T00:00:00Z").toEpochMilli());

        void advance(Duration d) {
            millis.addAndGet(d.toMillis());
        }

        @Override
        public long millis() {
            return millis.get();
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis());
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }

    @Test
    void iteratorsExpireRecordsAreTrimmedAndDisabledStreamsGo() {
        MovingClock clock = new MovingClock();
        StorageConfig config = StorageConfig.memory()
                .withCapacity(
                        CapacityConfig.defaults().withMode(ThroughputMode.OFF).withClock(clock))
                .withFeedTrimMillis(0)
                .withTtlIntervalMillis(0);
        try (StorageEngine storage = StorageEngine.open(config)) {
            KeySchema schema = new KeySchema(new KeySchema.KeyAttribute("id", ScalarType.S), null);
            Table t = storage.tables()
                    .create(TableMetadata.create(
                            "lifetimes",
                            "6d3f0c5e-0000-4000-8000-000000000001",
                            schema,
                            List.of(new AttributeDefinition("id", "S")),
                            TableMetadata.PAY_PER_REQUEST,
                            0,
                            0,
                            clock.millis(),
                            null,
                            false,
                            Map.of()));
            storage.streams().enable(t, "KEYS_ONLY");
            storage.write(
                    t,
                    new PrimaryKey(new AttributeValue.S("a"), null),
                    ConditionalWrite.blind(new WriteDecision.Put(Map.of("id", new AttributeValue.S("a")))));
            RequestContext context = new RequestContext(
                    "r", "us-east-1", "000000000000", "localhost", clock, "DynamoDBStreams_20120810.GetRecords", false);
            String arn = new ListStreamsHandler(storage)
                    .handle(context, new ListStreamsInput("lifetimes", null, null))
                    .streams()
                    .get(0)
                    .streamArn();
            var shards = new DescribeStreamHandler(storage)
                    .handle(context, new DescribeStreamInput(arn, null, null, null))
                    .streamDescription()
                    .shards();
            GetShardIteratorHandler iterators = new GetShardIteratorHandler(storage);
            GetRecordsHandler records = new GetRecordsHandler(storage);
            String shardWithRecord = null;
            String sequence = null;
            for (var s : shards) {
                String it = iterators
                        .handle(context, new GetShardIteratorInput(arn, s.shardId(), "TRIM_HORIZON", null))
                        .shardIterator();
                var r = records.handle(context, new GetRecordsInput(it, null));
                if (!r.records().isEmpty()) {
                    shardWithRecord = s.shardId();
                    sequence = r.records().get(0).dynamodb().sequenceNumber();
                }
            }
            assertThat(shardWithRecord).isNotNull();
            String shard = shardWithRecord;
            // Numbers past a long are refused as DynamoDB refuses them, not with an internal error.
            String prefix = sequence.substring(0, sequence.length() - 20);
            ApiException huge = catchThrowableOfType(
                    ApiException.class,
                    () -> iterators.handle(
                            context,
                            new GetShardIteratorInput(
                                    arn, shard, "AT_SEQUENCE_NUMBER", prefix + "99999999999999999999")));
            assertThat(huge.code()).isEqualTo(ErrorCode.VALIDATION);
            String hugeShard = "shardId-99999999999999999999-" + shard.substring(shard.length() - 8);
            ApiException noShard = catchThrowableOfType(
                    ApiException.class,
                    () -> iterators.handle(context, new GetShardIteratorInput(arn, hugeShard, "LATEST", null)));
            assertThat(noShard.code()).isEqualTo(ErrorCode.RESOURCE_NOT_FOUND);

            // 15 minutes and a second later, an iterator issued now has expired.
            String old = iterators
                    .handle(context, new GetShardIteratorInput(arn, shard, "TRIM_HORIZON", null))
                    .shardIterator();
            clock.advance(Duration.ofMinutes(15).plusSeconds(1));
            ApiException expired = catchThrowableOfType(
                    ApiException.class, () -> records.handle(context, new GetRecordsInput(old, null)));
            assertThat(expired.code()).isEqualTo(ErrorCode.EXPIRED_ITERATOR);

            // 24 hours later the record is trimmed: TRIM_HORIZON starts after it, and its position is refused.
            clock.advance(Duration.ofHours(24));
            storage.trimFeed();
            String horizon = iterators
                    .handle(context, new GetShardIteratorInput(arn, shard, "TRIM_HORIZON", null))
                    .shardIterator();
            assertThat(records.handle(context, new GetRecordsInput(horizon, null))
                            .records())
                    .isEmpty();
            String at = sequence;
            ApiException trimmed = catchThrowableOfType(
                    ApiException.class,
                    () -> iterators.handle(context, new GetShardIteratorInput(arn, shard, "AT_SEQUENCE_NUMBER", at)));
            assertThat(trimmed.code()).isEqualTo(ErrorCode.TRIMMED_DATA_ACCESS);

            // A disabled stream is listed for 24 hours, then gone.
            storage.streams().disable(t);
            clock.advance(Duration.ofHours(23));
            assertThat(new ListStreamsHandler(storage)
                            .handle(context, new ListStreamsInput("lifetimes", null, null))
                            .streams())
                    .hasSize(1);
            clock.advance(Duration.ofHours(2));
            assertThat(new ListStreamsHandler(storage)
                            .handle(context, new ListStreamsInput("lifetimes", null, null))
                            .streams())
                    .isEmpty();
            assertThat(t.feed().recording()).as("no consumer left").isFalse();
        }
    }
}
