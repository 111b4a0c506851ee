package io.partita.conformance;

import static io.partita.conformance.support.AttributeValues.n;
import static io.partita.conformance.support.AttributeValues.s;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.partita.conformance.support.ApiErrors;
import io.partita.conformance.support.Endpoint;
import io.partita.conformance.support.PartitaExtension;
import io.partita.conformance.support.Tables;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.GetRecordsResponse;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.OperationType;
import software.amazon.awssdk.services.dynamodb.model.Record;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.Shard;
import software.amazon.awssdk.services.dynamodb.model.ShardIteratorType;
import software.amazon.awssdk.services.dynamodb.model.StreamStatus;
import software.amazon.awssdk.services.dynamodb.model.StreamViewType;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/**
 * DynamoDB Streams through the SDK's Streams client ("Change data capture for DynamoDB Streams"): a stream enabled
 * with a table or later, its records in every view type, the four iterator types, paging through a shard, disabling
 * (the stream stays readable and its shards close), enabling again (a new ARN), and the errors of each step.
 */
@ExtendWith(PartitaExtension.class)
class StreamsTest {
    static String table(Tables tables, StreamViewType view) {
        CreateTableRequest.Builder b = CreateTableRequest.builder()
                .attributeDefinitions(CreateTableTest.attr("pk", ScalarAttributeType.S))
                .keySchema(CreateTableTest.key("pk", KeyType.HASH))
                .billingMode(BillingMode.PAY_PER_REQUEST);
        if (view != null) {
            b.streamSpecification(s -> s.streamEnabled(true).streamViewType(view));
        }
        return tables.create(b);
    }

    static String streamArn(DynamoDbClient ddb, String table) {
        return ddb.describeTable(b -> b.tableName(table)).table().latestStreamArn();
    }

    /** Every record of every shard of the stream, from the oldest, each shard read to where it ends for now. */
    static List<Record> readAll(DynamoDbStreamsClient streams, String arn) {
        List<Record> out = new ArrayList<>();
        for (Shard shard : streams.describeStream(b -> b.streamArn(arn))
                .streamDescription()
                .shards()) {
            String it = streams.getShardIterator(b ->
                            b.streamArn(arn).shardId(shard.shardId()).shardIteratorType(ShardIteratorType.TRIM_HORIZON))
                    .shardIterator();
            for (int pages = 0; it != null && pages < 100; pages++) {
                String from = it;
                GetRecordsResponse r = streams.getRecords(b -> b.shardIterator(from));
                out.addAll(r.records());
                if (r.records().isEmpty()) {
                    break;
                }
                it = r.nextShardIterator();
            }
        }
        return out;
    }

    static void writeInsertModifyRemove(DynamoDbClient ddb, String t) {
        ddb.putItem(b -> b.tableName(t).item(Map.of("pk", s("a"), "v", n("1"))));
        ddb.putItem(b -> b.tableName(t).item(Map.of("pk", s("a"), "v", n("2"))));
        // The same item again changes nothing: no record ("No record for a write that changes nothing").
        ddb.putItem(b -> b.tableName(t).item(Map.of("pk", s("a"), "v", n("2"))));
        ddb.deleteItem(b -> b.tableName(t).key(Map.of("pk", s("a"))));
        // Deleting an item that is not there changes nothing either.
        ddb.deleteItem(b -> b.tableName(t).key(Map.of("pk", s("a"))));
    }

    @ParameterizedTest
    @EnumSource(
            value = StreamViewType.class,
            names = {"KEYS_ONLY", "NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES"})
    void recordsCarryTheImagesOfTheirViewType(StreamViewType view, DynamoDbClient ddb, Tables tables) {
        String t = table(tables, view);
        TableDescription d = ddb.describeTable(b -> b.tableName(t)).table();
        assertThat(d.streamSpecification().streamEnabled()).isTrue();
        assertThat(d.streamSpecification().streamViewType()).isEqualTo(view);
        assertThat(d.latestStreamArn()).isEqualTo(d.tableArn() + "/stream/" + d.latestStreamLabel());
        writeInsertModifyRemove(ddb, t);
        List<Record> records = readAll(Endpoint.streams(), d.latestStreamArn());
        assertThat(records)
                .extracting(Record::eventName)
                .containsExactly(OperationType.INSERT, OperationType.MODIFY, OperationType.REMOVE);
        boolean newImages = view == StreamViewType.NEW_IMAGE || view == StreamViewType.NEW_AND_OLD_IMAGES;
        boolean oldImages = view == StreamViewType.OLD_IMAGE || view == StreamViewType.NEW_AND_OLD_IMAGES;
        for (Record r : records) {
            assertThat(r.eventSource()).isEqualTo("aws:dynamodb");
            assertThat(r.eventVersion()).isEqualTo("1.1");
            assertThat(r.awsRegion()).isEqualTo(Endpoint.region().id());
            assertThat(r.eventID()).matches("[0-9a-f]{32}");
            assertThat(r.dynamodb().keys()).isEqualTo(Map.of("pk", s("a")));
            assertThat(r.dynamodb().streamViewType().toString()).isEqualTo(view.toString());
            assertThat(r.dynamodb().sizeBytes()).isPositive();
            assertThat(r.dynamodb().sequenceNumber()).matches("\\d{21,40}");
            assertThat(r.dynamodb().approximateCreationDateTime()).isNotNull();
            assertThat(r.userIdentity()).isNull();
        }
        Record insert = records.get(0);
        Record modify = records.get(1);
        Record remove = records.get(2);
        assertThat(insert.dynamodb().hasNewImage()).isEqualTo(newImages);
        assertThat(insert.dynamodb().hasOldImage()).isFalse();
        assertThat(modify.dynamodb().hasNewImage()).isEqualTo(newImages);
        assertThat(modify.dynamodb().hasOldImage()).isEqualTo(oldImages);
        assertThat(remove.dynamodb().hasNewImage()).isFalse();
        assertThat(remove.dynamodb().hasOldImage()).isEqualTo(oldImages);
        if (newImages) {
            assertThat(modify.dynamodb().newImage()).isEqualTo(Map.of("pk", s("a"), "v", n("2")));
        }
        if (oldImages) {
            assertThat(modify.dynamodb().oldImage()).isEqualTo(Map.of("pk", s("a"), "v", n("1")));
        }
        // Sequence numbers grow within the shard.
        assertThat(new java.math.BigInteger(modify.dynamodb().sequenceNumber()))
                .isGreaterThan(new java.math.BigInteger(insert.dynamodb().sequenceNumber()));
    }

    @Test
    void iteratorTypesAndPaging(DynamoDbClient ddb, Tables tables) {
        String t = table(tables, StreamViewType.NEW_IMAGE);
        String arn = streamArn(ddb, t);
        DynamoDbStreamsClient streams = Endpoint.streams();
        for (int i = 0; i < 5; i++) {
            String v = Integer.toString(i);
            ddb.putItem(b -> b.tableName(t).item(Map.of("pk", s("same"), "v", n(v))));
        }
        // One item: all its records are in one shard.
        Shard shard = streams.describeStream(b -> b.streamArn(arn)).streamDescription().shards().stream()
                .filter(sh -> {
                    String it = streams.getShardIterator(b -> b.streamArn(arn)
                                    .shardId(sh.shardId())
                                    .shardIteratorType(ShardIteratorType.TRIM_HORIZON))
                            .shardIterator();
                    return !streams.getRecords(b -> b.shardIterator(it))
                            .records()
                            .isEmpty();
                })
                .findFirst()
                .orElseThrow();
        String latest = streams.getShardIterator(
                        b -> b.streamArn(arn).shardId(shard.shardId()).shardIteratorType(ShardIteratorType.LATEST))
                .shardIterator();
        // Paging one record at a time from the oldest.
        List<String> values = new ArrayList<>();
        List<String> sequences = new ArrayList<>();
        String it = streams.getShardIterator(b ->
                        b.streamArn(arn).shardId(shard.shardId()).shardIteratorType(ShardIteratorType.TRIM_HORIZON))
                .shardIterator();
        for (int page = 0; page < 10; page++) {
            String from = it;
            GetRecordsResponse r = streams.getRecords(b -> b.shardIterator(from).limit(1));
            if (r.records().isEmpty()) {
                break;
            }
            assertThat(r.records()).hasSize(1);
            values.add(r.records().get(0).dynamodb().newImage().get("v").n());
            sequences.add(r.records().get(0).dynamodb().sequenceNumber());
            it = r.nextShardIterator();
            assertThat(it).as("an open shard always has a next iterator").isNotNull();
        }
        assertThat(values).containsExactly("0", "1", "2", "3", "4");
        String third = sequences.get(2);
        String at = streams.getShardIterator(b -> b.streamArn(arn)
                        .shardId(shard.shardId())
                        .shardIteratorType(ShardIteratorType.AT_SEQUENCE_NUMBER)
                        .sequenceNumber(third))
                .shardIterator();
        assertThat(streams.getRecords(b -> b.shardIterator(at)).records())
                .extracting(r -> r.dynamodb().newImage().get("v").n())
                .containsExactly("2", "3", "4");
        String after = streams.getShardIterator(b -> b.streamArn(arn)
                        .shardId(shard.shardId())
                        .shardIteratorType(ShardIteratorType.AFTER_SEQUENCE_NUMBER)
                        .sequenceNumber(third))
                .shardIterator();
        assertThat(streams.getRecords(b -> b.shardIterator(after)).records()).hasSize(2);
        // LATEST, taken before the next write, sees only it.
        ddb.putItem(b -> b.tableName(t).item(Map.of("pk", s("same"), "v", n("5"))));
        assertThat(streams.getRecords(b -> b.shardIterator(latest)).records())
                .extracting(r -> r.dynamodb().newImage().get("v").n())
                .containsExactly("5");
    }

    @Test
    void aDisabledStreamStaysReadableAndAnEnabledAgainOneIsNew(DynamoDbClient ddb, Tables tables) {
        String t = table(tables, StreamViewType.KEYS_ONLY);
        String first = streamArn(ddb, t);
        ddb.putItem(b -> b.tableName(t).item(Map.of("pk", s("a"))));
        ApiErrors.assertValidation(
                "Table already has an enabled stream: TableName: " + t,
                () -> ddb.updateTable(b -> b.tableName(t)
                        .streamSpecification(s -> s.streamEnabled(true).streamViewType(StreamViewType.NEW_IMAGE))));
        ddb.updateTable(b -> b.tableName(t).streamSpecification(s -> s.streamEnabled(false)));
        DynamoDbStreamsClient streams = Endpoint.streams();
        var described = streams.describeStream(b -> b.streamArn(first)).streamDescription();
        assertThat(described.streamStatus()).isIn(StreamStatus.DISABLING, StreamStatus.DISABLED);
        List<Record> kept = readAll(streams, first);
        assertThat(kept)
                .singleElement()
                .satisfies(r -> assertThat(r.dynamodb().keys()).isEqualTo(Map.of("pk", s("a"))));
        TableDescription after = ddb.describeTable(b -> b.tableName(t)).table();
        assertThat(after.streamSpecification()).isNull();
        assertThat(after.latestStreamArn()).isEqualTo(first);
        ApiErrors.assertValidation(
                "Table has no stream to disable: TableName: " + t,
                () -> ddb.updateTable(b -> b.tableName(t).streamSpecification(s -> s.streamEnabled(false))));

        if (Endpoint.isEmbedded()) {
            // On DynamoDB the table is UPDATING for a few seconds after a stream changes; Partita's is not.
            ddb.updateTable(b -> b.tableName(t)
                    .streamSpecification(s -> s.streamEnabled(true).streamViewType(StreamViewType.NEW_IMAGE)));
            String second = streamArn(ddb, t);
            assertThat(second).isNotEqualTo(first);
            ddb.putItem(b -> b.tableName(t).item(Map.of("pk", s("b"))));
            assertThat(readAll(streams, second))
                    .singleElement()
                    .satisfies(r -> assertThat(r.dynamodb().keys()).isEqualTo(Map.of("pk", s("b"))));
            assertThat(readAll(streams, first)).hasSize(1);
            assertThat(streams.listStreams(b -> b.tableName(t)).streams())
                    .extracting(st -> st.streamArn())
                    .containsExactlyInAnyOrder(first, second);
        }
    }

    @Test
    void errorsOfTheStreamsApi(DynamoDbClient ddb, Tables tables) {
        DynamoDbStreamsClient streams = Endpoint.streams();
        String t = table(tables, StreamViewType.KEYS_ONLY);
        String arn = streamArn(ddb, t);
        String missing = arn.replace("/stream/", "x/stream/");
        ResourceNotFoundException notFound = catchThrowableOfType(
                ResourceNotFoundException.class, () -> streams.describeStream(b -> b.streamArn(missing)));
        assertThat(notFound).isNotNull();
        assertThat(notFound.awsErrorDetails().errorMessage())
                .isEqualTo("Requested resource not found: Stream: " + missing + " not found");
        String shardId = streams.describeStream(b -> b.streamArn(arn))
                .streamDescription()
                .shards()
                .get(0)
                .shardId();
        String otherShard = "shardId-00000000000000009999-" + shardId.substring(shardId.length() - 8);
        ResourceNotFoundException noShard = catchThrowableOfType(
                ResourceNotFoundException.class,
                () -> streams.getShardIterator(
                        b -> b.streamArn(arn).shardId(otherShard).shardIteratorType(ShardIteratorType.TRIM_HORIZON)));
        assertThat(noShard).isNotNull();
        assertThat(noShard.awsErrorDetails().errorMessage())
                .isEqualTo("Requested resource not found: Shard does not exist");
        ApiErrors.assertValidation(
                "One or more parameter values were invalid: Table is being created with a stream enabled,"
                        + " UpdateViewType is required",
                () -> ddb.createTable(b -> b.tableName(Tables.uniqueName("nostream"))
                        .attributeDefinitions(CreateTableTest.attr("pk", ScalarAttributeType.S))
                        .keySchema(CreateTableTest.key("pk", KeyType.HASH))
                        .billingMode(BillingMode.PAY_PER_REQUEST)
                        .streamSpecification(s -> s.streamEnabled(true))));
        ApiErrors.assertValidation(
                "One or more parameter values were invalid: If stream is being enabled then UpdateViewType is"
                        + " required",
                () -> ddb.updateTable(
                        b -> b.tableName(table(tables, null)).streamSpecification(s -> s.streamEnabled(true))));
    }

    /** Partita's view of how far a stream's readers are behind: the iterator age of each shard's last read. */
    @Test
    @org.junit.jupiter.api.Tag("partita-only")
    void iteratorAgesAreReported(DynamoDbClient ddb, Tables tables) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(Endpoint.isEmbedded());
        String t = table(tables, StreamViewType.KEYS_ONLY);
        for (int i = 0; i < 3; i++) {
            String k = "k" + i;
            ddb.putItem(b -> b.tableName(t).item(Map.of("pk", s(k))));
        }
        assertThat(readAll(Endpoint.streams(), streamArn(ddb, t))).hasSize(3);
        var view = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(io.partita.conformance.support.Indexes.adminGet(Endpoint.uri(), "/admin/streams?table=" + t));
        var shards = view.get("tables").get(0).get("streams").get(0).get("shards");
        int read = 0;
        for (var shard : shards) {
            if (shard.has("iteratorAgeMillis")) {
                read++;
                assertThat(shard.get("iteratorAgeMillis").asLong())
                        .as("caught up")
                        .isZero();
            }
        }
        assertThat(read).as("every shard was read").isEqualTo(shards.size());
        assertThat(io.partita.conformance.support.Indexes.adminGet(Endpoint.uri(), "/metrics")
                        .lines()
                        .filter(l -> l.startsWith("partita_stream_iterator_age_milliseconds{"))
                        .filter(l -> l.contains("table=\"" + t + "\"")))
                .isNotEmpty();
    }
}
