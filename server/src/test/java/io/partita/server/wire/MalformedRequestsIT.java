package io.partita.server.wire;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.partita.server.embedded.EmbeddedPartita;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Bad input never gets a 5xx: for a valid request of each operation, every field at every depth (a table's request
 * list, an item, an attribute value, a key, an expression map) is replaced in turn by each wrong shape — null, a
 * string, a number, a boolean, an empty object, an empty list — and each answer must be a 4xx (or a 200 where the
 * shape happens to be acceptable), never a 5xx and never a dropped connection. The server must still answer a valid
 * request at the end. About 5,000 requests, a few seconds.
 */
class MalformedRequestsIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private static EmbeddedPartita partita;
    private static RawApi api;
    private static java.nio.file.Path s3;

    /** A valid request of each operation, against the tables {@link #start} creates. */
    private static final Map<String, String> VALID = new LinkedHashMap<>();

    static {
        String item =
                "{\"id\":{\"S\":\"a\"},\"sk\":{\"N\":\"1\"},\"g\":{\"S\":\"x\"},\"m\":{\"M\":{\"l\":{\"L\":[{\"N\":"
                        + "\"1\"},{\"SS\":[\"a\"]}]}}},\"b\":{\"B\":\"AAE=\"},\"t\":{\"BOOL\":true},\"z\":{\"NULL\":true}}";
        String key = "{\"id\":{\"S\":\"a\"},\"sk\":{\"N\":\"1\"}}";
        VALID.put(
                "PutItem",
                "{\"TableName\":\"fuzz\",\"Item\":" + item + ",\"ConditionExpression\":\"attribute_not_exists"
                        + "(#x) OR #x = :v\",\"ExpressionAttributeNames\":{\"#x\":\"g\"},\"ExpressionAttributeValues\":{\":v\":"
                        + "{\"S\":\"x\"}},\"ReturnValues\":\"ALL_OLD\",\"ReturnConsumedCapacity\":\"INDEXES\"}");
        VALID.put(
                "GetItem",
                "{\"TableName\":\"fuzz\",\"Key\":" + key + ",\"ProjectionExpression\":\"#x, m.l[0]\","
                        + "\"ExpressionAttributeNames\":{\"#x\":\"g\"},\"ConsistentRead\":true}");
        VALID.put(
                "UpdateItem",
                "{\"TableName\":\"fuzz\",\"Key\":" + key + ",\"UpdateExpression\":\"SET #x = :v ADD n"
                        + " :one REMOVE q\",\"ConditionExpression\":\"size(#x) < :ten\",\"ExpressionAttributeNames\":{\"#x\":"
                        + "\"g\"},\"ExpressionAttributeValues\":{\":v\":{\"S\":\"y\"},\":one\":{\"N\":\"1\"},\":ten\":{\"N\":"
                        + "\"10\"}},\"ReturnValues\":\"UPDATED_NEW\"}");
        VALID.put(
                "UpdateItem#legacy",
                "{\"TableName\":\"fuzz\",\"Key\":" + key + ",\"AttributeUpdates\":{\"g\":"
                        + "{\"Action\":\"PUT\",\"Value\":{\"S\":\"z\"}}},\"Expected\":{\"g\":{\"ComparisonOperator\":\"NOT_NULL\"}}}");
        VALID.put(
                "DeleteItem",
                "{\"TableName\":\"fuzz\",\"Key\":" + key
                        + ",\"ConditionExpression\":\"attribute_exists(#x) OR #x IN (:a, :b)\","
                        + "\"ExpressionAttributeNames\":{\"#x\":\"g\"},\"ExpressionAttributeValues\":{\":a\":{\"S\":\"x\"},\":b\":"
                        + "{\"S\":\"y\"}},\"ReturnValues\":\"ALL_OLD\"}");
        VALID.put(
                "Query",
                "{\"TableName\":\"fuzz\",\"KeyConditionExpression\":\"id = :p AND sk BETWEEN :a AND :b\","
                        + "\"FilterExpression\":\"attribute_exists(g)\",\"ExpressionAttributeValues\":{\":p\":{\"S\":\"a\"},"
                        + "\":a\":{\"N\":\"0\"},\":b\":{\"N\":\"5\"}},\"ExclusiveStartKey\":" + key + ",\"Limit\":5,"
                        + "\"ScanIndexForward\":false,\"Select\":\"ALL_ATTRIBUTES\"}");
        VALID.put(
                "Query#index",
                "{\"TableName\":\"fuzz\",\"IndexName\":\"by-g\",\"KeyConditions\":{\"g\":"
                        + "{\"AttributeValueList\":[{\"S\":\"x\"}],\"ComparisonOperator\":\"EQ\"}},\"QueryFilter\":{\"t\":"
                        + "{\"ComparisonOperator\":\"NOT_NULL\"}}}");
        VALID.put(
                "Scan",
                "{\"TableName\":\"fuzz\",\"ScanFilter\":{\"g\":{\"AttributeValueList\":[{\"S\":\"x\"}],"
                        + "\"ComparisonOperator\":\"BEGINS_WITH\"}},\"Segment\":0,\"TotalSegments\":2,\"AttributesToGet\":"
                        + "[\"g\"],\"ExclusiveStartKey\":" + key + "}");
        VALID.put(
                "BatchGetItem",
                "{\"RequestItems\":{\"fuzz\":{\"Keys\":[" + key + "],\"ProjectionExpression\":\"g\","
                        + "\"ConsistentRead\":true}},\"ReturnConsumedCapacity\":\"TOTAL\"}");
        VALID.put(
                "BatchWriteItem",
                "{\"RequestItems\":{\"fuzz\":[{\"PutRequest\":{\"Item\":" + item + "}},"
                        + "{\"DeleteRequest\":{\"Key\":{\"id\":{\"S\":\"b\"},\"sk\":{\"N\":\"2\"}}}}]}}");
        VALID.put(
                "TransactWriteItems",
                "{\"TransactItems\":[{\"Put\":{\"TableName\":\"fuzz\",\"Item\":" + item + "}},"
                        + "{\"Update\":{\"TableName\":\"fuzz\",\"Key\":{\"id\":{\"S\":\"c\"},\"sk\":{\"N\":\"3\"}},"
                        + "\"UpdateExpression\":\"SET g = :v\",\"ExpressionAttributeValues\":{\":v\":{\"S\":\"w\"}}}},"
                        + "{\"ConditionCheck\":{\"TableName\":\"fuzz\",\"Key\":{\"id\":{\"S\":\"d\"},\"sk\":{\"N\":\"4\"}},"
                        + "\"ConditionExpression\":\"attribute_not_exists(id)\"}},{\"Delete\":{\"TableName\":\"fuzz\",\"Key\":"
                        + "{\"id\":{\"S\":\"e\"},\"sk\":{\"N\":\"5\"}}}}],\"ClientRequestToken\":\"t\"}");
        VALID.put(
                "TransactGetItems",
                "{\"TransactItems\":[{\"Get\":{\"TableName\":\"fuzz\",\"Key\":" + key
                        + ",\"ProjectionExpression\":\"#g\",\"ExpressionAttributeNames\":{\"#g\":\"g\"}}}]}");
        // Partita's own operations between a cluster's nodes, which any caller may send a single node too.
        VALID.put(
                "Partita.HoldTransactGetItems",
                "{\"Hold\":\"h1\",\"TransactItems\":[{\"Get\":{\"TableName\":\"fuzz\",\"Key\":" + key
                        + "}}],\"ReturnConsumedCapacity\":\"TOTAL\"}");
        VALID.put("Partita.ReleaseTransactGetItems", "{\"Hold\":\"h1\"}");
        VALID.put(
                "Partita.HoldExecuteTransaction",
                "{\"Hold\":\"h2\",\"TransactStatements\":[{\"Statement\":\"SELECT * FROM \\\"fuzz\\\" WHERE"
                        + " id = ? AND sk = ?\",\"Parameters\":[{\"S\":\"a\"},{\"N\":\"1\"}]}],\"Positions\":[3]}");
        VALID.put("Partita.ReleaseExecuteTransaction", "{\"Hold\":\"h2\"}");
        VALID.put(
                "Partita.PrepareTransactWriteItems",
                "{\"Transaction\":\"t1\",\"Decides\":true,\"DecidingTable\":\"fuzz\",\"Deadline\":0,"
                        + "\"Payload\":10,\"TransactItems\":[{\"Put\":{\"TableName\":\"fuzz\",\"Item\":" + item
                        + "}}],\"ReturnConsumedCapacity\":\"TOTAL\"}");
        VALID.put(
                "Partita.PrepareExecuteTransaction",
                "{\"Transaction\":\"t3\",\"Decides\":false,\"DecidingTable\":\"fuzz\",\"Deadline\":0,"
                        + "\"TransactStatements\":[{\"Statement\":\"DELETE FROM \\\"fuzz\\\" WHERE id = ?"
                        + " AND sk = ?\",\"Parameters\":[{\"S\":\"b\"},{\"N\":\"1\"}]}],\"Positions\":[4]}");
        VALID.put("Partita.CommitTransactWriteItems", "{\"Transaction\":\"t1\",\"Decides\":true}");
        VALID.put("Partita.AbortTransactWriteItems", "{\"Transaction\":\"t2\",\"Decides\":false}");
        VALID.put(
                "Partita.CheckBatchWriteItem",
                "{\"RequestItems\":{\"fuzz\":[{\"PutRequest\":{\"Item\":" + item + "}}]}}");
        VALID.put(
                "ExecuteStatement",
                "{\"Statement\":\"SELECT * FROM \\\"fuzz\\\" WHERE id = ? AND sk > ?\","
                        + "\"Parameters\":[{\"S\":\"a\"},{\"N\":\"0\"}],\"Limit\":2}");
        VALID.put(
                "BatchExecuteStatement",
                "{\"Statements\":[{\"Statement\":\"SELECT * FROM \\\"fuzz\\\" WHERE id = ?"
                        + " AND sk = ?\",\"Parameters\":[{\"S\":\"a\"},{\"N\":\"1\"}]}]}");
        VALID.put(
                "ExecuteTransaction",
                "{\"TransactStatements\":[{\"Statement\":\"UPDATE \\\"fuzz\\\" SET g = ? WHERE"
                        + " id = ? AND sk = ?\",\"Parameters\":[{\"S\":\"q\"},{\"S\":\"a\"},{\"N\":\"1\"}]}]}");
        VALID.put(
                "CreateTable",
                "{\"TableName\":\"made\",\"AttributeDefinitions\":[{\"AttributeName\":\"id\","
                        + "\"AttributeType\":\"S\"},{\"AttributeName\":\"g\",\"AttributeType\":\"S\"}],\"KeySchema\":[{"
                        + "\"AttributeName\":\"id\",\"KeyType\":\"HASH\"}],\"GlobalSecondaryIndexes\":[{\"IndexName\":\"gsi-x\","
                        + "\"KeySchema\":[{\"AttributeName\":\"g\",\"KeyType\":\"HASH\"}],\"Projection\":{\"ProjectionType\":"
                        + "\"INCLUDE\",\"NonKeyAttributes\":[\"x\"]}}],\"BillingMode\":\"PAY_PER_REQUEST\",\"Tags\":[{\"Key\":"
                        + "\"k\",\"Value\":\"v\"}],\"StreamSpecification\":{\"StreamEnabled\":true,\"StreamViewType\":"
                        + "\"KEYS_ONLY\"}}");
        VALID.put(
                "UpdateTable",
                "{\"TableName\":\"fuzz\",\"DeletionProtectionEnabled\":false,\"TableClass\":\"STANDARD\"}");
        VALID.put(
                "UpdateTable#maximums",
                "{\"TableName\":\"fuzz\",\"OnDemandThroughput\":{\"MaxReadRequestUnits\":-1,"
                        + "\"MaxWriteRequestUnits\":-1}}");
        VALID.put(
                "UpdateTable#warm",
                "{\"TableName\":\"fuzz\",\"WarmThroughput\":{\"ReadUnitsPerSecond\":12000,"
                        + "\"WriteUnitsPerSecond\":4000}}");
        VALID.put(
                "UpdateTable#sse",
                "{\"TableName\":\"fuzz\",\"SSESpecification\":{\"Enabled\":true,\"SSEType\":\"KMS\","
                        + "\"KMSMasterKeyId\":\"alias/fuzz\"}}");
        VALID.put(
                "UpdateTable#gsi",
                "{\"TableName\":\"fuzz\",\"AttributeDefinitions\":[{\"AttributeName\":\"h\","
                        + "\"AttributeType\":\"N\"}],\"GlobalSecondaryIndexUpdates\":[{\"Create\":{\"IndexName\":\"by-h\","
                        + "\"KeySchema\":[{\"AttributeName\":\"h\",\"KeyType\":\"HASH\"}],\"Projection\":{\"ProjectionType\":"
                        + "\"KEYS_ONLY\"}}}]}");
        VALID.put("DescribeTable", "{\"TableName\":\"fuzz\"}");
        VALID.put("ListTables", "{\"ExclusiveStartTableName\":\"aaa\",\"Limit\":10}");
        VALID.put(
                "TagResource",
                "{\"ResourceArn\":\"arn:aws:dynamodb:us-east-1:000000000000:table/fuzz\",\"Tags\":"
                        + "[{\"Key\":\"k\",\"Value\":\"v\"}]}");
        VALID.put(
                "UntagResource",
                "{\"ResourceArn\":\"arn:aws:dynamodb:us-east-1:000000000000:table/fuzz\"," + "\"TagKeys\":[\"k\"]}");
        VALID.put("ListTagsOfResource", "{\"ResourceArn\":\"arn:aws:dynamodb:us-east-1:000000000000:table/fuzz\"}");
        VALID.put("CreateBackup", "{\"TableName\":\"fuzz\",\"BackupName\":\"fuzz-backup\"}");
        VALID.put(
                "ListBackups",
                "{\"TableName\":\"fuzz\",\"Limit\":5,\"TimeRangeLowerBound\":0,\"TimeRangeUpperBound\":"
                        + "99999999999,\"BackupType\":\"ALL\",\"ExclusiveStartBackupArn\":\"BACKUP_ARN\"}");
        VALID.put("DescribeBackup", "{\"BackupArn\":\"BACKUP_ARN\"}");
        VALID.put(
                "RestoreTableFromBackup",
                "{\"TargetTableName\":\"restored\",\"BackupArn\":\"BACKUP_ARN\",\"BillingModeOverride\":"
                        + "\"PROVISIONED\",\"ProvisionedThroughputOverride\":{\"ReadCapacityUnits\":1,"
                        + "\"WriteCapacityUnits\":1},\"GlobalSecondaryIndexOverride\":[{\"IndexName\":\"by-g\","
                        + "\"KeySchema\":[{\"AttributeName\":\"g\",\"KeyType\":\"HASH\"}],\"Projection\":"
                        + "{\"ProjectionType\":\"ALL\"},\"ProvisionedThroughput\":{\"ReadCapacityUnits\":1,"
                        + "\"WriteCapacityUnits\":1}}],\"LocalSecondaryIndexOverride\":[],"
                        + "\"SSESpecificationOverride\":{\"Enabled\":true,\"SSEType\":\"KMS\"}}");
        VALID.put("DeleteBackup", "{\"BackupArn\":\"BACKUP_ARN\"}");
        VALID.put(
                "UpdateContinuousBackups",
                "{\"TableName\":\"fuzz\",\"PointInTimeRecoverySpecification\":{\"PointInTimeRecoveryEnabled\":true,"
                        + "\"RecoveryPeriodInDays\":7}}");
        VALID.put("DescribeContinuousBackups", "{\"TableName\":\"fuzz\"}");
        VALID.put(
                "RestoreTableToPointInTime",
                "{\"SourceTableName\":\"fuzz\",\"TargetTableName\":\"restored-pitr\",\"UseLatestRestorableTime\":"
                        + "true,\"BillingModeOverride\":\"PAY_PER_REQUEST\",\"LocalSecondaryIndexOverride\":[]}");
        VALID.put(
                "ExportTableToPointInTime",
                "{\"TableArn\":\"arn:aws:dynamodb:us-east-1:000000000000:table/fuzz\",\"S3Bucket\":\"fuzz-bucket\","
                        + "\"S3Prefix\":\"exports\",\"ExportFormat\":\"DYNAMODB_JSON\",\"ExportType\":\"FULL_EXPORT\","
                        + "\"S3SseAlgorithm\":\"AES256\"}");
        VALID.put(
                "ListExports",
                "{\"TableArn\":\"arn:aws:dynamodb:us-east-1:000000000000:table/fuzz\",\"MaxResults\":5}");
        VALID.put(
                "ImportTable",
                "{\"S3BucketSource\":{\"S3Bucket\":\"fuzz-bucket\",\"S3KeyPrefix\":\"exports/\"},\"InputFormat\":"
                        + "\"DYNAMODB_JSON\",\"InputCompressionType\":\"GZIP\",\"TableCreationParameters\":{"
                        + "\"TableName\":\"imported\",\"AttributeDefinitions\":[{\"AttributeName\":\"id\","
                        + "\"AttributeType\":\"S\"},{\"AttributeName\":\"sk\",\"AttributeType\":\"N\"}],"
                        + "\"KeySchema\":[{\"AttributeName\":\"id\",\"KeyType\":\"HASH\"},{\"AttributeName\":"
                        + "\"sk\",\"KeyType\":\"RANGE\"}],\"BillingMode\":\"PAY_PER_REQUEST\"}}");
        VALID.put("ListImports", "{\"PageSize\":5}");
        VALID.put(
                "UpdateTimeToLive",
                "{\"TableName\":\"fuzz\",\"TimeToLiveSpecification\":{\"Enabled\":true,"
                        + "\"AttributeName\":\"ttl\"}}");
        VALID.put("DescribeTimeToLive", "{\"TableName\":\"fuzz\"}");
        VALID.put("UpdateContributorInsights", "{\"TableName\":\"fuzz\",\"ContributorInsightsAction\":\"ENABLE\"}");
        VALID.put("DescribeContributorInsights", "{\"TableName\":\"fuzz\"}");
        VALID.put("ListContributorInsights", "{\"TableName\":\"fuzz\",\"MaxResults\":5}");
        VALID.put("DeleteTable", "{\"TableName\":\"gone\"}");
        // DynamoDB Streams' operations, on the same port.
        VALID.put(
                "Streams.ListStreams",
                "{\"TableName\":\"fuzz\",\"Limit\":5,\"ExclusiveStartStreamArn\":"
                        + "\"arn:aws:dynamodb:us-east-1:000000000000:table/fuzz/stream/2026-01-01T00:00:00.000\"}");
        VALID.put(
                "Streams.DescribeStream",
                "{\"StreamArn\":\"arn:aws:dynamodb:us-east-1:000000000000:table/fuzz/stream/"
                        + "2026-01-01T00:00:00.000\",\"Limit\":10,\"ShardFilter\":{\"Type\":\"CHILD_SHARDS\",\"ShardId\":"
                        + "\"shardId-00000000000000000000-00000000\"}}");
        VALID.put(
                "Streams.GetShardIterator",
                "{\"StreamArn\":\"arn:aws:dynamodb:us-east-1:000000000000:table/fuzz/"
                        + "stream/2026-01-01T00:00:00.000\",\"ShardId\":\"shardId-00000000000000000000-00000000\","
                        + "\"ShardIteratorType\":\"TRIM_HORIZON\"}");
        VALID.put("Streams.GetRecords", "{\"ShardIterator\":\"bm90LWFuLWl0ZXJhdG9y\",\"Limit\":100}");
    }

    @BeforeAll
    static void start() throws Exception {
        // Exports and imports use a directory of the test's own, and a bucket in it.
        s3 = java.nio.file.Files.createTempDirectory("partita-fuzz-s3");
        java.nio.file.Files.createDirectories(s3.resolve("fuzz-bucket"));
        partita =
                EmbeddedPartita.start(io.partita.storage.StorageConfig.memory().withS3Dir(s3));
        api = new RawApi(partita.endpoint());
        for (String table : List.of("fuzz", "gone")) {
            HttpResponse<String> r = api.post(
                    "DynamoDB_20120810.CreateTable",
                    "{\"TableName\":\"" + table + "\",\"AttributeDefinitions\":[{\"AttributeName\":\"id\","
                            + "\"AttributeType\":\"S\"},{\"AttributeName\":\"sk\",\"AttributeType\":\"N\"},{"
                            + "\"AttributeName\":\"g\",\"AttributeType\":\"S\"}],\"KeySchema\":[{\"AttributeName\":"
                            + "\"id\",\"KeyType\":\"HASH\"},{\"AttributeName\":\"sk\",\"KeyType\":\"RANGE\"}],"
                            + "\"GlobalSecondaryIndexes\":[{\"IndexName\":\"by-g\",\"KeySchema\":[{\"AttributeName\":"
                            + "\"g\",\"KeyType\":\"HASH\"}],\"Projection\":{\"ProjectionType\":\"ALL\"}}],"
                            + "\"BillingMode\":\"PAY_PER_REQUEST\",\"StreamSpecification\":{\"StreamEnabled\":true,"
                            + "\"StreamViewType\":\"NEW_AND_OLD_IMAGES\"}}");
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        }
        // The streams' requests name the real stream, its first shard and an iterator of it.
        String arn = JSON.readTree(api.post("DynamoDB_20120810.DescribeTable", "{\"TableName\":\"fuzz\"}")
                        .body())
                .at("/Table/LatestStreamArn")
                .asText();
        String shard = JSON.readTree(
                        api.post("DynamoDBStreams_20120810.DescribeStream", "{\"StreamArn\":\"" + arn + "\"}")
                                .body())
                .at("/StreamDescription/Shards/0/ShardId")
                .asText();
        String iterator = JSON.readTree(api.post(
                                "DynamoDBStreams_20120810.GetShardIterator",
                                "{\"StreamArn\":\"" + arn + "\",\"ShardId\":\"" + shard
                                        + "\",\"ShardIteratorType\":\"TRIM_HORIZON\"}")
                        .body())
                .at("/ShardIterator")
                .asText();
        String backup = JSON.readTree(
                        api.post("DynamoDB_20120810.CreateBackup", "{\"TableName\":\"fuzz\",\"BackupName\":\"base\"}")
                                .body())
                .at("/BackupDetails/BackupArn")
                .asText();
        String fakeArn = "arn:aws:dynamodb:us-east-1:000000000000:table/fuzz/stream/2026-01-01T00:00:00.000";
        VALID.replaceAll((op, body) -> body.replace(fakeArn, arn)
                .replace("shardId-00000000000000000000-00000000", shard)
                .replace("bm90LWFuLWl0ZXJhdG9y", iterator)
                .replace("BACKUP_ARN", backup));
    }

    @AfterAll
    static void stop() throws java.io.IOException {
        if (partita != null) {
            partita.close();
        }
        if (s3 != null) {
            try (var files = java.nio.file.Files.walk(s3)) {
                files.sorted(java.util.Comparator.reverseOrder())
                        .forEach(f -> f.toFile().delete());
            }
        }
    }

    /** The wrong shapes each field is replaced by. */
    private static List<JsonNode> shapes() {
        return List.of(
                F.nullNode(),
                F.textNode("x"),
                F.numberNode(7),
                F.booleanNode(true),
                F.objectNode(),
                F.arrayNode(),
                F.arrayNode().add(F.nullNode()),
                F.objectNode().set("S", F.nullNode()),
                F.textNode(""),
                F.arrayNode().add(F.objectNode()),
                F.objectNode().set("N", F.textNode("1e99999999999")),
                F.objectNode().set("L", F.arrayNode().add(F.textNode("x"))));
    }

    /** Every path into {@code node}: object fields and list elements, at every depth. */
    private static void paths(JsonNode node, List<Object> prefix, List<List<Object>> out) {
        if (node.isObject()) {
            node.fieldNames().forEachRemaining(f -> {
                List<Object> p = new ArrayList<>(prefix);
                p.add(f);
                out.add(p);
                paths(node.get(f), p, out);
            });
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                List<Object> p = new ArrayList<>(prefix);
                p.add(i);
                out.add(p);
                paths(node.get(i), p, out);
            }
        }
    }

    /** {@code root} with the value at {@code path} replaced by {@code value}. */
    private static JsonNode replaced(JsonNode root, List<Object> path, JsonNode value) {
        JsonNode copy = root.deepCopy();
        JsonNode parent = copy;
        for (int i = 0; i < path.size() - 1; i++) {
            Object step = path.get(i);
            parent = step instanceof String s ? parent.get(s) : parent.get((Integer) step);
        }
        Object last = path.get(path.size() - 1);
        if (last instanceof String s) {
            ((ObjectNode) parent).set(s, value);
        } else {
            ((ArrayNode) parent).set((Integer) last, value);
        }
        return copy;
    }

    /** The status line of {@code method path} sent as written (Java's HTTP client refuses a malformed URI). */
    private static String rawStatus(String method, String path) throws Exception {
        java.net.URI endpoint = partita.endpoint();
        try (java.net.Socket socket = new java.net.Socket(endpoint.getHost(), endpoint.getPort())) {
            socket.setSoTimeout(10_000);
            String request = method + " " + path + " HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n"
                    + "Connection: close\r\n\r\n";
            socket.getOutputStream().write(request.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            String response =
                    new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            return response.substring(0, response.indexOf("\r\n")) + " | "
                    + response.substring(response.indexOf("\r\n\r\n") + 4);
        }
    }

    /** The admin endpoints: a query string that cannot be decoded is the caller's mistake, a 400, not a 500. */
    @Test
    void aMalformedAdminQueryIsA400() throws Exception {
        for (String path : List.of(
                "/admin/metrics?table=%ZZ",
                "/admin/indexes?table=%", "/admin/feed?table=%E0%A4%A", "/admin/ttl?table=%")) {
            assertThat(rawStatus("GET", path)).startsWith("HTTP/1.1 400").contains("malformed query parameter table");
        }
        assertThat(rawStatus("POST", "/admin/indexes/await?table=%ZZ")).startsWith("HTTP/1.1 400");
    }

    @Test
    void noWrongShapeAnywhereGetsA5xx() throws Exception {
        List<String> failures = new ArrayList<>();
        int sent = 0;
        for (Map.Entry<String, String> e : VALID.entrySet()) {
            String operation = e.getKey().split("#")[0];
            String target = operation.startsWith("Streams.")
                    ? "DynamoDBStreams_20120810." + operation.substring("Streams.".length())
                    : operation.startsWith("Partita.") ? operation : "DynamoDB_20120810." + operation;
            JsonNode valid = JSON.readTree(e.getValue());
            HttpResponse<String> base = api.post(target, e.getValue());
            // The unmutated request succeeds, so that its mutations reach as deep as a valid one does.
            assertThat(base.statusCode()).as(e.getKey() + ": " + base.body()).isEqualTo(200);
            List<List<Object>> paths = new ArrayList<>();
            paths(valid, List.of(), paths);
            for (List<Object> path : paths) {
                for (JsonNode shape : shapes()) {
                    String body = JSON.writeValueAsString(replaced(valid, path, shape));
                    HttpResponse<String> r = api.post(target, body);
                    sent++;
                    if (r.statusCode() >= 500) {
                        failures.add(operation + " " + path + " = " + shape + " -> " + r.statusCode() + " " + r.body());
                    }
                }
            }
        }
        System.out.printf("MalformedRequestsIT: %d malformed requests, none answered 5xx%n", sent);
        assertThat(failures).as("%d requests sent", sent).isEmpty();
        assertThat(sent).isGreaterThan(2000);
        HttpResponse<String> still = api.post("DynamoDB_20120810.DescribeTable", "{\"TableName\":\"fuzz\"}");
        assertThat(still.statusCode()).isEqualTo(200);
    }
}
