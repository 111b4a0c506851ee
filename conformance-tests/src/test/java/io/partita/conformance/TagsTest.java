package io.partita.conformance;

import static io.partita.conformance.CreateTableTest.tag;
import static io.partita.conformance.support.ApiErrors.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import io.partita.conformance.support.PartitaExtension;
import io.partita.conformance.support.Tables;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.Tag;

/** TagResource, ListTagsOfResource and UntagResource ("Tagging for DynamoDB") on a table's ARN. */
@ExtendWith(PartitaExtension.class)
class TagsTest {
    private static Map<String, String> tagsOf(DynamoDbClient ddb, String arn) {
        return ddb.listTagsOfResource(b -> b.resourceArn(arn)).tags().stream()
                .collect(Collectors.toMap(Tag::key, Tag::value));
    }

    /** Tag changes may take a moment to show on DynamoDB; Partita shows them at once. */
    private static void assertTagsEventually(DynamoDbClient ddb, String arn, Map<String, String> expected)
            throws InterruptedException {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
        while (!tagsOf(ddb, arn).equals(expected) && Instant.now().isBefore(deadline)) {
            Thread.sleep(500);
        }
        assertThat(tagsOf(ddb, arn)).isEqualTo(expected);
    }

    @Test
    void tagListUntagRoundTrip(DynamoDbClient ddb, Tables tables) throws InterruptedException {
        String name = tables.hashTable("pk", ScalarAttributeType.S);
        String arn = ddb.describeTable(b -> b.tableName(name)).table().tableArn();
        assertThat(tagsOf(ddb, arn)).isEmpty();

        ddb.tagResource(b -> b.resourceArn(arn).tags(tag("env", "test"), tag("team", "partita")));
        assertTagsEventually(ddb, arn, Map.of("env", "test", "team", "partita"));

        // Tagging a key again replaces its value.
        ddb.tagResource(b -> b.resourceArn(arn).tags(tag("team", "storage")));
        assertTagsEventually(ddb, arn, Map.of("env", "test", "team", "storage"));

        // Keys the table does not have are ignored.
        ddb.untagResource(b -> b.resourceArn(arn).tagKeys("env", "absent"));
        assertTagsEventually(ddb, arn, Map.of("team", "storage"));
    }

    /** An empty tag list is refused in DynamoDB's words, typo and all (dynalite's tests against DynamoDB). */
    @Test
    void anEmptyTagListIsRefused(DynamoDbClient ddb, Tables tables) {
        String name = tables.hashTable("pk", ScalarAttributeType.S);
        String arn = ddb.describeTable(b -> b.tableName(name)).table().tableArn();
        io.partita.conformance.support.ApiErrors.assertValidation(
                "Atleast one Tag needs to be provided as Input.",
                () -> ddb.tagResource(b -> b.resourceArn(arn).tags(java.util.List.of())));
    }

    // turbot/steampipe-plugin-aws#1516, cloud-custodian/cloud-custodian#3514: "ResourcArn" is DynamoDB's typo.
    @Test
    void missingTableArn(DynamoDbClient ddb, Tables tables) {
        String existing = tables.hashTable("pk", ScalarAttributeType.S);
        String existingArn =
                ddb.describeTable(b -> b.tableName(existing)).table().tableArn();
        String missing = Tables.uniqueName("missing");
        String arn = existingArn.substring(0, existingArn.lastIndexOf('/') + 1) + missing;

        assertError(
                ResourceNotFoundException.class,
                "ResourceNotFoundException",
                "Requested resource not found: ResourcArn: " + arn + " not found",
                () -> ddb.listTagsOfResource(b -> b.resourceArn(arn)));
    }
}
