package io.partita.server.wire;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stream across SIGKILL: a writer puts one item after another while the server is killed. After a restart the
 * stream is still there, with the same ARN, and holds a record for every acknowledged put, in order, and at most one
 * more (the put in flight at the kill); none is lost or doubled.
 */
class StreamCrashIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void everyAcknowledgedWriteIsInTheStreamAfterSigkill(@TempDir Path dir) throws Exception {
        AtomicInteger acknowledged = new AtomicInteger();
        String arn;
        try (ServerProcess server = ServerProcess.start(dir, "--throughput", "off")) {
            HttpResponse<String> created = server.api().post("DynamoDB_20120810.CreateTable", """
                    {"TableName":"streamed","BillingMode":"PAY_PER_REQUEST",
                     "AttributeDefinitions":[{"AttributeName":"id","AttributeType":"S"}],
                     "KeySchema":[{"AttributeName":"id","KeyType":"HASH"}],
                     "StreamSpecification":{"StreamEnabled":true,"StreamViewType":"NEW_IMAGE"}}""");
            assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
            arn = JSON.readTree(created.body())
                    .at("/TableDescription/LatestStreamArn")
                    .asText();
            Thread writer = new Thread(() -> {
                RawApi api = server.api();
                for (int i = 0; ; i++) {
                    try {
                        HttpResponse<String> r = api.post(
                                "DynamoDB_20120810.PutItem",
                                "{\"TableName\":\"streamed\",\"Item\":{\"id\":{\"S\":\"k" + (i % 7)
                                        + "\"},\"n\":{\"N\":\"" + i + "\"}}}");
                        if (r.statusCode() != 200) {
                            return;
                        }
                        acknowledged.set(i + 1);
                    } catch (Exception e) {
                        return;
                    }
                }
            });
            writer.start();
            Thread.sleep(1000);
            server.kill();
            writer.join(10_000);
        }
        int acked = acknowledged.get();
        assertThat(acked).isPositive();
        try (ServerProcess again = ServerProcess.start(dir, "--throughput", "off")) {
            RawApi api = again.api();
            JsonNode table = JSON.readTree(api.post("DynamoDB_20120810.DescribeTable", "{\"TableName\":\"streamed\"}")
                    .body());
            assertThat(table.at("/Table/LatestStreamArn").asText()).isEqualTo(arn);
            Map<String, List<Integer>> byKey = new HashMap<>();
            List<Integer> all = new ArrayList<>();
            JsonNode shards = JSON.readTree(
                            api.post("DynamoDBStreams_20120810.DescribeStream", "{\"StreamArn\":\"" + arn + "\"}")
                                    .body())
                    .at("/StreamDescription/Shards");
            for (JsonNode shard : shards) {
                String it = JSON.readTree(api.post(
                                        "DynamoDBStreams_20120810.GetShardIterator",
                                        "{\"StreamArn\":\"" + arn + "\",\"ShardId\":\""
                                                + shard.get("ShardId").asText()
                                                + "\",\"ShardIteratorType\":\"TRIM_HORIZON\"}")
                                .body())
                        .get("ShardIterator")
                        .asText();
                while (true) {
                    HttpResponse<String> r =
                            api.post("DynamoDBStreams_20120810.GetRecords", "{\"ShardIterator\":\"" + it + "\"}");
                    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                    JsonNode page = JSON.readTree(r.body());
                    for (JsonNode rec : page.get("Records")) {
                        int n = rec.at("/dynamodb/NewImage/n/N").asInt();
                        all.add(n);
                        byKey.computeIfAbsent(rec.at("/dynamodb/Keys/id/S").asText(), k -> new ArrayList<>())
                                .add(n);
                    }
                    if (page.get("Records").isEmpty() || !page.has("NextShardIterator")) {
                        break;
                    }
                    it = page.get("NextShardIterator").asText();
                }
            }
            // The first put of each key is an INSERT, later ones MODIFY: every acknowledged one has its record.
            assertThat(all.stream().sorted().toList())
                    .as("records of puts 0..%d (and perhaps the one in flight)", acked - 1)
                    .startsWith(
                            java.util.stream.IntStream.range(0, acked).boxed().toArray(Integer[]::new));
            assertThat(all).hasSizeBetween(acked, acked + 1).doesNotHaveDuplicates();
            byKey.forEach((k, ns) -> assertThat(ns).as(k).isSorted());
        }
    }
}
