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
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
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

    // Captures from 2018-2022 had DynamoDB's typo "ResourcArn"; live captures of 2026 spell it "ResourceArn".
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
                "Requested resource not found: ResourceArn: " + arn + " not found",
                () -> ddb.listTagsOfResource(b -> b.resourceArn(arn)));
    }

    /**
     * Each tag rule refused in DynamoDB's own words (live captures, 2026), changing nothing: a bad key or value, a
     * reserved prefix, a key twice, more than 50 tags on the table.
     */
    @Test
    void badTagsAreRefusedAndNoneIsApplied(DynamoDbClient ddb, Tables tables) {
        String name = tables.hashTable("pk", ScalarAttributeType.S);
        String arn = ddb.describeTable(b -> b.tableName(name)).table().tableArn();
        String longKey = "k".repeat(129);
        String[][] refused = {
            {longKey, "v", "The Tag Key provided is invalid, Key: " + longKey},
            {"", "v", "The Tag Key provided is invalid, Key: "},
            {"bad#char", "v", "The Tag Key provided is invalid, Key: bad#char"},
            {"k", "v".repeat(257), "The Tag Value provided is invalid, Value: " + "v".repeat(257)},
            {"k", "50%", "The Tag Value provided is invalid, Value: 50%"},
            {"aws:owner", "me", "Tag Key cannot be prefixed with aws:, Key: aws:owner"},
            {"AWS:owner", "me", "Tag Key cannot be prefixed with aws:, Key: AWS:owner"}
        };
        for (String[] r : refused) {
            io.partita.conformance.support.ApiErrors.assertValidation(
                    r[2], () -> ddb.tagResource(b -> b.resourceArn(arn).tags(tag("good", "one"), tag(r[0], r[1]))));
        }
        io.partita.conformance.support.ApiErrors.assertValidation(
                "Duplicate Tag Keys provided as input: Duplicate Tag Key found dup",
                () -> ddb.tagResource(b -> b.resourceArn(arn).tags(tag("dup", "1"), tag("dup", "2"))));
        assertThat(tagsOf(ddb, arn)).isEmpty();

        // Letters of any script, numbers, spaces and + - = . _ : / @ are allowed; 128 and 256 characters are not
        // too long, counted in characters.
        String hebrew = "\u05d0".repeat(128);
        ddb.tagResource(b -> b.resourceArn(arn).tags(tag("a+b-c=d.e_f:g/h@i", "caf\u00e9 \u4e2d"), tag(hebrew, "")));
        assertThat(tagsOf(ddb, arn)).containsEntry(hebrew, "").containsEntry("a+b-c=d.e_f:g/h@i", "caf\u00e9 \u4e2d");
    }

    @Test
    void aTableHoldsAtMostFiftyTags(DynamoDbClient ddb, Tables tables) {
        String name = tables.hashTable("pk", ScalarAttributeType.S);
        String arn = ddb.describeTable(b -> b.tableName(name)).table().tableArn();
        java.util.List<Tag> first = new java.util.ArrayList<>();
        for (int i = 0; i < 40; i++) {
            first.add(tag("t" + i, "v"));
        }
        ddb.tagResource(b -> b.resourceArn(arn).tags(first));
        java.util.List<Tag> more = new java.util.ArrayList<>();
        for (int i = 40; i < 51; i++) {
            more.add(tag("t" + i, "v"));
        }
        // Counted with the tags the table has: 40 + 11 is one too many.
        io.partita.conformance.support.ApiErrors.assertValidation(
                "Number of Tags exceed the current limit for the provided ResourceArn",
                () -> ddb.tagResource(b -> b.resourceArn(arn).tags(more)));
        assertThat(tagsOf(ddb, arn)).hasSize(40);
    }

    @Test
    void untaggingChecksItsKeys(DynamoDbClient ddb, Tables tables) {
        String name = tables.hashTable("pk", ScalarAttributeType.S);
        String arn = ddb.describeTable(b -> b.tableName(name)).table().tableArn();
        io.partita.conformance.support.ApiErrors.assertValidation(
                "Atleast one Tag Key needs to be provided as Input.",
                () -> ddb.untagResource(b -> b.resourceArn(arn).tagKeys(java.util.List.of())));
        io.partita.conformance.support.ApiErrors.assertValidation(
                "Tag Key cannot be prefixed with aws:, Key: aws:foo",
                () -> ddb.untagResource(b -> b.resourceArn(arn).tagKeys("aws:foo")));
        io.partita.conformance.support.ApiErrors.assertValidation(
                "The Tag Key provided is invalid, Key: ",
                () -> ddb.untagResource(b -> b.resourceArn(arn).tagKeys("")));
    }

    @Test
    void resourceArnsAreCheckedInDynamoDbsOrder(DynamoDbClient ddb, Tables tables) {
        String name = tables.hashTable("pk", ScalarAttributeType.S);
        String arn = ddb.describeTable(b -> b.tableName(name)).table().tableArn();
        String[] parts = arn.split(":", 6); // arn:aws:dynamodb:region:account:table/name
        io.partita.conformance.support.ApiErrors.assertValidation(
                "One or more parameter values were invalid: ARNs must start with 'arn:': not-an-arn",
                () -> ddb.listTagsOfResource(b -> b.resourceArn("not-an-arn")));
        String otherRegion = String.join(
                ":",
                parts[0],
                parts[1],
                parts[2],
                parts[3].equals("eu-west-1") ? "us-east-1" : "eu-west-1",
                parts[4],
                parts[5]);
        io.partita.conformance.support.ApiErrors.assertValidation(
                "Invalid TableArn: Invalid ResourceArn provided as input " + otherRegion,
                () -> ddb.listTagsOfResource(b -> b.resourceArn(otherRegion)));
        String index = arn + "/index/by-x";
        io.partita.conformance.support.ApiErrors.assertValidation(
                "One or more parameter values were invalid: Invalid resource arn provided, only table or stream is"
                        + " accepted. Provided resource arn: " + index,
                () -> ddb.tagResource(b -> b.resourceArn(index).tags(tag("k", "v"))));
        String otherAccount = String.join(
                ":",
                parts[0],
                parts[1],
                parts[2],
                parts[3],
                parts[4].equals("123456789012") ? "210987654321" : "123456789012",
                parts[5]);
        DynamoDbException denied = org.assertj.core.api.Assertions.catchThrowableOfType(
                DynamoDbException.class, () -> ddb.listTagsOfResource(b -> b.resourceArn(otherAccount)));
        assertThat(denied.awsErrorDetails().errorCode()).isEqualTo("AccessDeniedException");
    }

    @Test
    void createTableChecksItsTagsAndCreatesNothingOnARefusal(DynamoDbClient ddb, Tables tables) {
        String name = Tables.uniqueName("tagged");
        tables.track(name);
        io.partita.conformance.support.ApiErrors.assertValidation(
                "Tag Key cannot be prefixed with aws:, Key: aws:x",
                () -> ddb.createTable(b -> b.tableName(name)
                        .attributeDefinitions(CreateTableTest.attr("pk", ScalarAttributeType.S))
                        .keySchema(
                                CreateTableTest.key("pk", software.amazon.awssdk.services.dynamodb.model.KeyType.HASH))
                        .billingMode("PAY_PER_REQUEST")
                        .tags(tag("aws:x", "y"))));
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> ddb.describeTable(b -> b.tableName(name))))
                .isInstanceOf(ResourceNotFoundException.class);
    }
}
