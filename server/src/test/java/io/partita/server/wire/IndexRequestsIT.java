package io.partita.server.wire;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.partita.server.embedded.EmbeddedPartita;
import java.net.http.HttpResponse;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Malformed index requests that no SDK would send (nulls inside lists, unknown attribute types, a start key with a
 * null value) answer DynamoDB's ValidationException, never a 500, and change nothing.
 */
class IndexRequestsIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static final String TABLE = """
            {"TableName":"indexed","BillingMode":"PAY_PER_REQUEST",
             "AttributeDefinitions":[{"AttributeName":"id","AttributeType":"S"},{"AttributeName":"g","AttributeType":"S"}],
             "KeySchema":[{"AttributeName":"id","KeyType":"HASH"}],
             "GlobalSecondaryIndexes":[{"IndexName":"by-g","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],
               "Projection":{"ProjectionType":"ALL"}}]}""";

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "null GSI|CreateTable|{\"TableName\":\"t1x\",\"BillingMode\":\"PAY_PER_REQUEST\","
                        + "\"AttributeDefinitions\":[{\"AttributeName\":\"id\",\"AttributeType\":\"S\"}],"
                        + "\"KeySchema\":[{\"AttributeName\":\"id\",\"KeyType\":\"HASH\"}],"
                        + "\"GlobalSecondaryIndexes\":[null]}|Value null at 'globalSecondaryIndexes.1.member'",
                "null LSI|CreateTable|{\"TableName\":\"t2x\",\"BillingMode\":\"PAY_PER_REQUEST\","
                        + "\"AttributeDefinitions\":[{\"AttributeName\":\"id\",\"AttributeType\":\"S\"}],"
                        + "\"KeySchema\":[{\"AttributeName\":\"id\",\"KeyType\":\"HASH\"}],"
                        + "\"LocalSecondaryIndexes\":[null]}|Value null at 'localSecondaryIndexes.1.member'",
                "null index key element|CreateTable|{\"TableName\":\"t3x\",\"BillingMode\":\"PAY_PER_REQUEST\","
                        + "\"AttributeDefinitions\":[{\"AttributeName\":\"id\",\"AttributeType\":\"S\"}],"
                        + "\"KeySchema\":[{\"AttributeName\":\"id\",\"KeyType\":\"HASH\"}],"
                        + "\"GlobalSecondaryIndexes\":[{\"IndexName\":\"gsi\",\"KeySchema\":[null],"
                        + "\"Projection\":{\"ProjectionType\":\"ALL\"}}]}"
                        + "|Value null at 'globalSecondaryIndexes.1.member.keySchema.1.member'",
                "null non-key attribute|CreateTable|{\"TableName\":\"t4x\",\"BillingMode\":\"PAY_PER_REQUEST\","
                        + "\"AttributeDefinitions\":[{\"AttributeName\":\"id\",\"AttributeType\":\"S\"}],"
                        + "\"KeySchema\":[{\"AttributeName\":\"id\",\"KeyType\":\"HASH\"}],"
                        + "\"GlobalSecondaryIndexes\":[{\"IndexName\":\"gsi\",\"KeySchema\":[{\"AttributeName\":"
                        + "\"id\",\"KeyType\":\"HASH\"}],\"Projection\":{\"ProjectionType\":\"INCLUDE\","
                        + "\"NonKeyAttributes\":[null]}}]}"
                        + "|Value null at 'globalSecondaryIndexes.1.member.projection.nonKeyAttributes.1.member'",
                "null update|UpdateTable|{\"TableName\":\"indexed\",\"GlobalSecondaryIndexUpdates\":[null]}"
                        + "|Value null at 'globalSecondaryIndexUpdates.1.member'",
                "unknown attribute type|UpdateTable|{\"TableName\":\"indexed\",\"AttributeDefinitions\":"
                        + "[{\"AttributeName\":\"h\",\"AttributeType\":\"X\"}],\"GlobalSecondaryIndexUpdates\":"
                        + "[{\"Create\":{\"IndexName\":\"by-h\",\"KeySchema\":[{\"AttributeName\":\"h\",\"KeyType\":"
                        + "\"HASH\"}],\"Projection\":{\"ProjectionType\":\"ALL\"}}}]}"
                        + "|Value 'X' at 'attributeDefinitions.1.member.attributeType'",
                "null in a start key|Query|{\"TableName\":\"indexed\",\"IndexName\":\"by-g\","
                        + "\"KeyConditionExpression\":\"g = :g\",\"ExpressionAttributeValues\":{\":g\":{\"S\":\"x\"}},"
                        + "\"ExclusiveStartKey\":{\"id\":{\"S\":\"a\"},\"g\":null}}"
                        + "|Supplied AttributeValue is empty, must contain exactly one of the supported datatypes",
                "null attribute in an item|PutItem|{\"TableName\":\"indexed\",\"Item\":{\"id\":{\"S\":\"a\"},"
                        + "\"x\":null}}|Supplied AttributeValue is empty, must contain exactly one of the supported"
                        + " datatypes",
                "null write request|BatchWriteItem|{\"RequestItems\":{\"indexed\":[null]}}"
                        + "|Value null at 'requestItems.indexed.member.1.member' failed to satisfy constraint: Member must"
                        + " not be null",
            })
    void refusedWithAValidationError(String name, String operation, String body, String message) throws Exception {
        try (EmbeddedPartita partita = EmbeddedPartita.start()) {
            RawApi api = new RawApi(partita.endpoint());
            HttpResponse<String> created = api.post("DynamoDB_20120810.CreateTable", TABLE);
            assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
            HttpResponse<String> r = api.post("DynamoDB_20120810." + operation, body);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
            JsonNode error = JSON.readTree(r.body());
            assertThat(error.get("__type").asText()).endsWith("ValidationException");
            assertThat(error.get("message").asText()).contains(message);
            JsonNode listed =
                    JSON.readTree(api.post("DynamoDB_20120810.ListTables", "{}").body());
            assertThat(listed.get("TableNames")).hasSize(1);
            JsonNode described =
                    JSON.readTree(api.post("DynamoDB_20120810.DescribeTable", "{\"TableName\":\"indexed\"}")
                            .body());
            assertThat(described.at("/Table/GlobalSecondaryIndexes")).hasSize(1);
        }
    }
}
