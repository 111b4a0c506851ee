package io.partita.conformance;

import static io.partita.conformance.support.AttributeValues.n;
import static io.partita.conformance.support.AttributeValues.s;
import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.dynamodbv2.streamsadapter.AmazonDynamoDBStreamsAdapterClient;
import com.amazonaws.services.dynamodbv2.streamsadapter.StreamsSchedulerFactory;
import com.amazonaws.services.dynamodbv2.streamsadapter.model.DynamoDBStreamsProcessRecordsInput;
import com.amazonaws.services.dynamodbv2.streamsadapter.polling.DynamoDBStreamsPollingConfig;
import com.amazonaws.services.dynamodbv2.streamsadapter.processor.DynamoDBStreamsShardRecordProcessor;
import io.partita.conformance.support.Endpoint;
import io.partita.conformance.support.PartitaExtension;
import io.partita.conformance.support.Tables;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.cloudwatch.CloudWatchAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.StreamViewType;
import software.amazon.kinesis.common.ConfigsBuilder;
import software.amazon.kinesis.common.InitialPositionInStream;
import software.amazon.kinesis.common.InitialPositionInStreamExtended;
import software.amazon.kinesis.coordinator.Scheduler;
import software.amazon.kinesis.lifecycle.events.InitializationInput;
import software.amazon.kinesis.lifecycle.events.LeaseLostInput;
import software.amazon.kinesis.lifecycle.events.ShardEndedInput;
import software.amazon.kinesis.lifecycle.events.ShutdownRequestedInput;
import software.amazon.kinesis.metrics.MetricsLevel;

/**
 * The stock consumer: the Kinesis Client Library (3.x) with the DynamoDB Streams Kinesis Adapter reads a table's
 * stream from Partita unchanged, keeping its lease table (with its GSI) in Partita too, and checkpointing as it goes.
 */
@Tag("partita-only")
@ExtendWith(PartitaExtension.class)
class StreamsKclTest {
    @Test
    void theKinesisClientLibraryReadsEveryRecord(DynamoDbClient ddb, Tables tables) throws Exception {
        // On any Partita, a cluster's node too (its lease table, with its GSI, cut by ranges as any table is with
        // --cluster-min-ranges); not run against DynamoDB itself, where it would leave the KCL's tables behind.
        Assumptions.assumeTrue(Endpoint.isPartita(), "the KCL's lease table is made on the server under test");
        String t = StreamsTest.table(tables, StreamViewType.NEW_IMAGE);
        String arn = ddb.describeTable(b -> b.tableName(t)).table().latestStreamArn();
        String app = Tables.uniqueName("kcl");
        tables.track(app);
        Map<String, String> seen = new ConcurrentHashMap<>();
        CountDownLatch all = new CountDownLatch(20);
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        try (DynamoDbAsyncClient dynamo = DynamoDbAsyncClient.builder()
                        .endpointOverride(Endpoint.uri())
                        .region(Endpoint.region())
                        .credentialsProvider(Endpoint.credentials())
                        .build();
                CloudWatchAsyncClient cloudWatch = CloudWatchAsyncClient.builder()
                        .endpointOverride(Endpoint.uri())
                        .region(Endpoint.region())
                        .credentialsProvider(Endpoint.credentials())
                        .build()) {
            AmazonDynamoDBStreamsAdapterClient adapter =
                    new AmazonDynamoDBStreamsAdapterClient(Endpoint.streams(), Endpoint.region());
            ConfigsBuilder configs = new ConfigsBuilder(
                    StreamsSchedulerFactory.createSingleStreamTracker(
                            arn,
                            InitialPositionInStreamExtended.newInitialPosition(InitialPositionInStream.TRIM_HORIZON)),
                    app,
                    adapter,
                    dynamo,
                    cloudWatch,
                    "worker-1",
                    () -> new DynamoDBStreamsShardRecordProcessor() {
                        @Override
                        public void initialize(InitializationInput input) {}

                        @Override
                        public void processRecords(DynamoDBStreamsProcessRecordsInput input) {
                            try {
                                input.records().forEach(r -> {
                                    var image = r.getRecord().dynamodb().newImage();
                                    if (seen.put(
                                                    image.get("pk").s(),
                                                    image.get("n").n())
                                            == null) {
                                        all.countDown();
                                    }
                                });
                                input.checkpointer().checkpoint();
                            } catch (Exception e) {
                                errors.add(e);
                            }
                        }

                        @Override
                        public void leaseLost(LeaseLostInput input) {}

                        @Override
                        public void shardEnded(ShardEndedInput input) {
                            try {
                                input.checkpointer().checkpoint();
                            } catch (Exception e) {
                                errors.add(e);
                            }
                        }

                        @Override
                        public void shutdownRequested(ShutdownRequestedInput input) {}
                    });
            Scheduler scheduler = StreamsSchedulerFactory.createScheduler(
                    configs.checkpointConfig(),
                    configs.coordinatorConfig().parentShardPollIntervalMillis(200),
                    // Shorter than the KCL's production periods (10 s failover, 60 s shard sync): a test's pace.
                    configs.leaseManagementConfig().failoverTimeMillis(1000).shardSyncIntervalMillis(1000),
                    configs.lifecycleConfig(),
                    configs.metricsConfig().metricsLevel(MetricsLevel.NONE),
                    configs.processorConfig(),
                    configs.retrievalConfig()
                            .retrievalSpecificConfig(
                                    new DynamoDBStreamsPollingConfig(adapter).idleTimeBetweenReadsInMillis(200)),
                    adapter);
            Thread worker = new Thread(scheduler, "kcl-scheduler");
            worker.setDaemon(true);
            worker.start();
            try {
                for (int i = 0; i < 20; i++) {
                    String pk = "item-" + i;
                    String v = Integer.toString(i);
                    ddb.putItem(b -> b.tableName(t).item(Map.of("pk", s(pk), "n", n(v))));
                }
                assertThat(all.await(120, TimeUnit.SECONDS))
                        .as("the KCL read every record: %s", seen)
                        .isTrue();
                assertThat(seen).hasSize(20);
                assertThat(errors).isEmpty();
            } finally {
                scheduler.startGracefulShutdown().get(30, TimeUnit.SECONDS);
            }
        }
    }
}
