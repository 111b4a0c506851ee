package io.partita.conformance;

import static io.partita.conformance.support.ApiErrors.assertValidation;
import static org.assertj.core.api.Assertions.assertThat;

import io.partita.conformance.support.ApiErrors;
import io.partita.conformance.support.Endpoint;
import io.partita.conformance.support.PartitaExtension;
import io.partita.conformance.support.Tables;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;
import software.amazon.awssdk.services.dynamodb.model.Tag;

/**
 * CreateTable (API_CreateTable): the description it answers and the validation errors it gives, word for word.
 * Messages come from real DynamoDB responses quoted in public issues (see each test's comment).
 */
@ExtendWith(PartitaExtension.class)
class CreateTableTest {
    static final Pattern TABLE_ID = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

    static AttributeDefinition attr(String name, ScalarAttributeType type) {
        return AttributeDefinition.builder()
                .attributeName(name)
                .attributeType(type)
                .build();
    }

    static Tag tag(String key, String value) {
        return Tag.builder().key(key).value(value).build();
    }

    static KeySchemaElement key(String name, KeyType type) {
        return KeySchemaElement.builder().attributeName(name).keyType(type).build();
    }

    /** DynamoDB's table ARN: {@code arn:aws:dynamodb:<region>:<12-digit account>:table/<name>}. */
    static Pattern tableArn(String name) {
        return Pattern.compile(
                "arn:aws:dynamodb:" + Pattern.quote(Endpoint.region().id()) + ":\\d{12}:table/" + Pattern.quote(name));
    }

    /** Creates the table under a fresh tracked name, waits until it is ACTIVE, and returns CreateTable's answer. */
    static TableDescription create(DynamoDbClient ddb, Tables tables, CreateTableRequest.Builder request) {
        String name = Tables.uniqueName("create");
        tables.track(name);
        TableDescription created =
                ddb.createTable(request.tableName(name).build()).tableDescription();
        ddb.waiter().waitUntilTableExists(b -> b.tableName(name));
        return created;
    }

    /** A request that is valid except for what the test changes; its table name is fresh and tracked. */
    static CreateTableRequest.Builder validRequest(Tables tables) {
        String name = Tables.uniqueName("invalid");
        tables.track(name); // only deleted if the server wrongly accepts the request
        return CreateTableRequest.builder()
                .tableName(name)
                .attributeDefinitions(attr("pk", ScalarAttributeType.S))
                .keySchema(key("pk", KeyType.HASH))
                .billingMode(BillingMode.PAY_PER_REQUEST);
    }

    static void assertNearNow(Instant t) {
        Instant now = Instant.now();
        // Generous, so clock skew against a remote endpoint does not matter.
        assertThat(t).isBetween(now.minus(Duration.ofMinutes(5)), now.plus(Duration.ofMinutes(5)));
    }

    @Test
    void hashOnlyOnDemandTable(DynamoDbClient ddb, Tables tables) {
        TableDescription d = create(
                ddb,
                tables,
                CreateTableRequest.builder()
                        .attributeDefinitions(attr("pk", ScalarAttributeType.S))
                        .keySchema(key("pk", KeyType.HASH))
                        .billingMode(BillingMode.PAY_PER_REQUEST));
        String name = d.tableName();

        assertThat(d.tableStatus()).isIn(TableStatus.CREATING, TableStatus.ACTIVE);
        assertThat(d.tableArn()).matches(tableArn(name));
        assertThat(d.tableId()).matches(TABLE_ID);
        assertNearNow(d.creationDateTime());
        assertThat(d.keySchema()).containsExactly(key("pk", KeyType.HASH));
        assertThat(d.attributeDefinitions()).containsExactly(attr("pk", ScalarAttributeType.S));
        // On-demand tables report zero provisioned capacity ("ProvisionedThroughputDescription").
        assertThat(d.provisionedThroughput().readCapacityUnits()).isZero();
        assertThat(d.provisionedThroughput().writeCapacityUnits()).isZero();
        assertThat(d.provisionedThroughput().numberOfDecreasesToday()).isZero();
        assertThat(d.billingModeSummary()).isNotNull();
        assertThat(d.billingModeSummary().billingMode()).isEqualTo(BillingMode.PAY_PER_REQUEST);
        // The time of the switch to on demand appears from DescribeTable on, not in CreateTable's answer.
        assertThat(d.billingModeSummary().lastUpdateToPayPerRequestDateTime()).isNull();
        assertThat(d.itemCount()).isZero();
        assertThat(d.tableSizeBytes()).isZero();

        TableDescription described = ddb.describeTable(b -> b.tableName(name)).table();
        assertThat(described.billingModeSummary().lastUpdateToPayPerRequestDateTime())
                .isEqualTo(d.creationDateTime());
        assertThat(described.tableStatus()).isEqualTo(TableStatus.ACTIVE);
        assertThat(described.tableArn()).isEqualTo(d.tableArn());
        assertThat(described.tableId()).isEqualTo(d.tableId());
        assertThat(described.deletionProtectionEnabled()).isFalse();
    }

    @Test
    void hashAndRangeProvisionedTable(DynamoDbClient ddb, Tables tables) {
        TableDescription d = create(
                ddb,
                tables,
                CreateTableRequest.builder()
                        .attributeDefinitions(attr("pk", ScalarAttributeType.S), attr("sk", ScalarAttributeType.N))
                        .keySchema(key("pk", KeyType.HASH), key("sk", KeyType.RANGE))
                        .billingMode(BillingMode.PROVISIONED)
                        .provisionedThroughput(t -> t.readCapacityUnits(5L).writeCapacityUnits(7L)));

        assertThat(d.tableStatus()).isIn(TableStatus.CREATING, TableStatus.ACTIVE);
        assertThat(d.tableArn()).matches(tableArn(d.tableName()));
        assertThat(d.tableId()).matches(TABLE_ID);
        assertNearNow(d.creationDateTime());
        assertThat(d.keySchema()).containsExactly(key("pk", KeyType.HASH), key("sk", KeyType.RANGE));
        assertThat(d.attributeDefinitions())
                .containsExactlyInAnyOrder(attr("pk", ScalarAttributeType.S), attr("sk", ScalarAttributeType.N));
        assertThat(d.provisionedThroughput().readCapacityUnits()).isEqualTo(5L);
        assertThat(d.provisionedThroughput().writeCapacityUnits()).isEqualTo(7L);
        assertThat(d.provisionedThroughput().numberOfDecreasesToday()).isZero();
        if (d.billingModeSummary() != null) {
            assertThat(d.billingModeSummary().billingMode()).isEqualTo(BillingMode.PROVISIONED);
        }
    }

    @Test
    void tagsGivenAtCreationAreListed(DynamoDbClient ddb, Tables tables) {
        TableDescription d = create(
                ddb,
                tables,
                CreateTableRequest.builder()
                        .attributeDefinitions(attr("pk", ScalarAttributeType.S))
                        .keySchema(key("pk", KeyType.HASH))
                        .billingMode(BillingMode.PAY_PER_REQUEST)
                        .tags(tag("env", "test"), tag("team", "partita")));

        Map<String, String> tags = ddb.listTagsOfResource(b -> b.resourceArn(d.tableArn())).tags().stream()
                .collect(Collectors.toMap(Tag::key, Tag::value));
        assertThat(tags).isEqualTo(Map.of("env", "test", "team", "partita"));
    }

    @Test
    void deletionProtectionGivenAtCreation(DynamoDbClient ddb, Tables tables) {
        TableDescription d = create(
                ddb,
                tables,
                CreateTableRequest.builder()
                        .attributeDefinitions(attr("pk", ScalarAttributeType.S))
                        .keySchema(key("pk", KeyType.HASH))
                        .billingMode(BillingMode.PAY_PER_REQUEST)
                        .deletionProtectionEnabled(true));

        assertThat(d.deletionProtectionEnabled()).isTrue();
        assertThat(ddb.describeTable(b -> b.tableName(d.tableName())).table().deletionProtectionEnabled())
                .isTrue();
    }

    // Validation framework format (aws/aws-cli#790, serverless/serverless#5120).
    @Test
    void tableNameTooShort(DynamoDbClient ddb, Tables tables) {
        assertValidation(
                "1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must"
                        + " have length greater than or equal to 3",
                () -> ddb.createTable(validRequest(tables).tableName("ab").build()));
    }

    @Test
    void tableNameWithBadCharacters(DynamoDbClient ddb, Tables tables) {
        assertValidation(
                "1 validation error detected: Value 'bad name!' at 'tableName' failed to satisfy constraint: Member"
                        + " must satisfy regular expression pattern: [a-zA-Z0-9_.-]+",
                () -> ddb.createTable(
                        validRequest(tables).tableName("bad name!").build()));
    }

    // "null" is unquoted (AllocZero/EfficientDynamoDb#164).
    @Test
    void tableNameMissing(DynamoDbClient ddb, Tables tables) {
        assertValidation(
                "1 validation error detected: Value null at 'tableName' failed to satisfy constraint: Member must"
                        + " not be null",
                () -> ddb.createTable(validRequest(tables).tableName(null).build()));
    }

    @Test
    void keySchemaMissing(DynamoDbClient ddb, Tables tables) {
        assertValidation(
                "1 validation error detected: Value null at 'keySchema' failed to satisfy constraint: Member must"
                        + " not be null",
                () -> ddb.createTable(validRequest(tables)
                        .keySchema((List<KeySchemaElement>) null)
                        .build()));
    }

    // pynamodb/PynamoDB#21.
    @Test
    void firstKeyNotHash(DynamoDbClient ddb, Tables tables) {
        assertValidation(
                "Invalid KeySchema: The first KeySchemaElement is not a HASH key type",
                () -> ddb.createTable(
                        validRequest(tables).keySchema(key("pk", KeyType.RANGE)).build()));
    }

    @Test
    void secondKeyNotRange(DynamoDbClient ddb, Tables tables) {
        assertValidation(
                "Invalid KeySchema: The second KeySchemaElement is not a RANGE key type",
                () -> ddb.createTable(validRequest(tables)
                        .attributeDefinitions(attr("pk", ScalarAttributeType.S), attr("sk", ScalarAttributeType.S))
                        .keySchema(key("pk", KeyType.HASH), key("sk", KeyType.HASH))
                        .build()));
    }

    // aws-cloudformation/cfn-lint#1037 (AWS CLI against DynamoDB): a sort key with no definition. The grammar
    // ("attribute have") is DynamoDB's.
    @Test
    void rangeKeyWithoutDefinition(DynamoDbClient ddb, Tables tables) {
        assertValidation(
                "Invalid KeySchema: Some index key attribute have no definition",
                () -> ddb.createTable(validRequest(tables)
                        .attributeDefinitions(attr("pk", ScalarAttributeType.S))
                        .keySchema(key("pk", KeyType.HASH), key("sk", KeyType.RANGE))
                        .build()));
    }

    // As many definitions as keys, but for another attribute: DynamoDB lists both sides, unquoted (dynalite's
    // createTable tests, recorded against DynamoDB; moto's _throw_attr_error gives the same text).
    @Test
    void hashKeyWithoutDefinition(DynamoDbClient ddb, Tables tables) {
        assertValidation(
                "One or more parameter values were invalid: Some index key attributes are not defined in"
                        + " AttributeDefinitions. Keys: [pk], AttributeDefinitions: [other]",
                () -> ddb.createTable(validRequest(tables)
                        .attributeDefinitions(attr("other", ScalarAttributeType.S))
                        .keySchema(key("pk", KeyType.HASH))
                        .build()));
    }

    // A definition no key uses, on a table without indexes: cfn-lint#1037 (AWS CLI) and scylladb/scylladb#19784
    // (nyh, against DynamoDB in 2024). "Some AttributeDefinitions are not used ..." is the wording when the
    // request has secondary indexes.
    @Test
    void unusedAttributeDefinition(DynamoDbClient ddb, Tables tables) {
        assertValidation(
                "One or more parameter values were invalid: Number of attributes in KeySchema does not exactly match"
                        + " number of attributes defined in AttributeDefinitions",
                () -> ddb.createTable(validRequest(tables)
                        .attributeDefinitions(attr("pk", ScalarAttributeType.S), attr("extra", ScalarAttributeType.S))
                        .keySchema(key("pk", KeyType.HASH))
                        .build()));
    }

    // scylladb/scylladb#13870 (nyh, against DynamoDB): the same name defined twice, with different types.
    @Test
    void duplicateAttributeDefinition(DynamoDbClient ddb, Tables tables) {
        assertValidation(
                "Attribute Name is duplicated: x",
                () -> ddb.createTable(validRequest(tables)
                        .attributeDefinitions(
                                attr("p", ScalarAttributeType.S),
                                attr("x", ScalarAttributeType.S),
                                attr("x", ScalarAttributeType.N))
                        .keySchema(key("p", KeyType.HASH), key("x", KeyType.RANGE))
                        .build()));
    }

    // aws/aws-sdk-java#1886, 3mcloud/falcano#46.
    @Test
    void provisionedWithoutThroughput(DynamoDbClient ddb, Tables tables) {
        assertValidation(
                "No provisioned throughput specified for the table",
                () -> ddb.createTable(validRequest(tables)
                        .billingMode(BillingMode.PROVISIONED)
                        .build()));
    }

    @Test
    void defaultBillingModeWithoutThroughput(DynamoDbClient ddb, Tables tables) {
        assertValidation(
                "No provisioned throughput specified for the table",
                () -> ddb.createTable(
                        validRequest(tables).billingMode((BillingMode) null).build()));
    }

    @Test
    void payPerRequestWithThroughput(DynamoDbClient ddb, Tables tables) {
        assertValidation(
                "One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be"
                        + " specified when BillingMode is PAY_PER_REQUEST",
                () -> ddb.createTable(validRequest(tables)
                        .provisionedThroughput(t -> t.readCapacityUnits(1L).writeCapacityUnits(1L))
                        .build()));
    }

    // rrahul963/serverless-create-global-dynamodb-table#12: both failures, write first, joined by "; ".
    @Test
    void zeroCapacity(DynamoDbClient ddb, Tables tables) {
        assertValidation(
                "2 validation errors detected: Value '0' at 'provisionedThroughput.writeCapacityUnits' failed to"
                        + " satisfy constraint: Member must have value greater than or equal to 1; Value '0' at"
                        + " 'provisionedThroughput.readCapacityUnits' failed to satisfy constraint: Member must have"
                        + " value greater than or equal to 1",
                () -> ddb.createTable(validRequest(tables)
                        .billingMode(BillingMode.PROVISIONED)
                        .provisionedThroughput(t -> t.readCapacityUnits(0L).writeCapacityUnits(0L))
                        .build()));
    }

    // joshsymonds/Dynamoid#178. The first table must be ACTIVE: while it is CREATING DynamoDB says
    // "Attempt to change a resource which is still in use: Table is being created: <name>" instead.
    @Test
    void existingTable(DynamoDbClient ddb, Tables tables) {
        String name = tables.hashTable("pk", ScalarAttributeType.S);
        ApiErrors.assertError(
                ResourceInUseException.class,
                "ResourceInUseException",
                "Table already exists: " + name,
                () -> ddb.createTable(validRequest(tables).tableName(name).build()));
    }
}
