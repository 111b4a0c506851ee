package io.partita.conformance;

import static io.partita.conformance.CreateTableTest.attr;
import static io.partita.conformance.CreateTableTest.key;
import static io.partita.conformance.support.ApiErrors.assertError;
import static io.partita.conformance.support.ApiErrors.assertValidation;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static software.amazon.awssdk.services.dynamodb.model.KeyType.HASH;
import static software.amazon.awssdk.services.dynamodb.model.KeyType.RANGE;
import static software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType.S;

import io.partita.conformance.support.Indexes;
import io.partita.conformance.support.PartitaExtension;
import io.partita.conformance.support.Tables;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateGlobalSecondaryIndexAction;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndex;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndexUpdate;
import software.amazon.awssdk.services.dynamodb.model.LimitExceededException;
import software.amazon.awssdk.services.dynamodb.model.LocalSecondaryIndex;
import software.amazon.awssdk.services.dynamodb.model.Projection;
import software.amazon.awssdk.services.dynamodb.model.ProjectionType;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;

/**
 * UpdateTable's GlobalSecondaryIndexUpdates (API_UpdateTable, "Managing global secondary indexes"): the requests
 * DynamoDB refuses, word for word. Every request here fails, so no index is ever built and the tables can be deleted
 * at once. Unless a test says otherwise the message comes from the ack-api-quirks live-probe catalogue ("CAT",
 * 2026): medium confidence, one source, but probed against DynamoDB in two regions.
 */
@ExtendWith(PartitaExtension.class)
class GsiUpdateValidationTest {
    private static final String INVALID = "One or more parameter values were invalid: ";
    private static final Projection KEYS_ONLY =
            Projection.builder().projectionType(ProjectionType.KEYS_ONLY).build();

    /**
     * An on-demand table keyed pk (HASH) + sk (RANGE) with the LSI "by-ls" (on ls) and the GSI "by-g" (on g), all
     * ACTIVE.
     */
    private static String indexedTable(DynamoDbClient ddb, Tables tables) {
        String name = tables.create(CreateTableRequest.builder()
                .attributeDefinitions(attr("pk", S), attr("sk", S), attr("ls", S), attr("g", S))
                .keySchema(key("pk", HASH), key("sk", RANGE))
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .localSecondaryIndexes(LocalSecondaryIndex.builder()
                        .indexName("by-ls")
                        .keySchema(key("pk", HASH), key("ls", RANGE))
                        .projection(KEYS_ONLY)
                        .build())
                .globalSecondaryIndexes(GlobalSecondaryIndex.builder()
                        .indexName("by-g")
                        .keySchema(key("g", HASH))
                        .projection(KEYS_ONLY)
                        .build()));
        Indexes.await(ddb, name);
        return name;
    }

    private static CreateGlobalSecondaryIndexAction.Builder newIndex(String name, String hash) {
        return CreateGlobalSecondaryIndexAction.builder()
                .indexName(name)
                .keySchema(key(hash, HASH))
                .projection(KEYS_ONLY);
    }

    private static GlobalSecondaryIndexUpdate create(CreateGlobalSecondaryIndexAction.Builder index) {
        return GlobalSecondaryIndexUpdate.builder().create(index.build()).build();
    }

    /** A KEYS_ONLY GSI {@code name} keyed on {@code hash}, created without throughput. */
    private static GlobalSecondaryIndexUpdate create(String name, String hash) {
        return create(newIndex(name, hash));
    }

    private static GlobalSecondaryIndexUpdate delete(String name) {
        return GlobalSecondaryIndexUpdate.builder()
                .delete(d -> d.indexName(name))
                .build();
    }

    /** An on-demand maximum change, the one kind of Update a PAY_PER_REQUEST table's GSI takes. */
    private static GlobalSecondaryIndexUpdate update(String name, long maxReads) {
        return GlobalSecondaryIndexUpdate.builder()
                .update(u -> u.indexName(name).onDemandThroughput(t -> t.maxReadRequestUnits(maxReads)))
                .build();
    }

    // Checked before anything else about the new index, and for an LSI's name too ("by-ls"); no name is quoted.
    // Clients match this exact text (amazonka's waiter); the scylladb alternator tests, run against DynamoDB, match
    // "already exists".
    @ParameterizedTest(name = "create {0} again")
    @ValueSource(strings = {"by-g", "by-ls"})
    void createIndexThatExists(String index, DynamoDbClient ddb, Tables tables) {
        String table = indexedTable(ddb, tables);
        assertValidation(
                "Attempting to create an index which already exists",
                () -> ddb.updateTable(b -> b.tableName(table)
                        .attributeDefinitions(attr("g", S))
                        .globalSecondaryIndexUpdates(create(index, "g"))));
    }

    // Not a ValidationException: the SDK's LimitExceededException, the same one DynamoDB gives while another index is
    // being created or deleted (CAT DDB-TABLE-159, high confidence; scylladb alternator test_gsi_updatetable).
    @Test
    void twoCreatesInOneCall(DynamoDbClient ddb, Tables tables) {
        String table = indexedTable(ddb, tables);
        assertError(
                LimitExceededException.class,
                "LimitExceededException",
                "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table",
                () -> ddb.updateTable(b -> b.tableName(table)
                        .attributeDefinitions(attr("g2", S), attr("g3", S))
                        .globalSecondaryIndexUpdates(create("by-g2", "g2"), create("by-g3", "g3"))));
    }

    // CAT DDB-TABLE-375/380 quote "Requested resource not found: Index <name> for table <table>" for an Update of a
    // vanished index; for a Delete the exact text is inferred, so only the type and the index's name are checked.
    @Test
    void deleteOfMissingIndex(DynamoDbClient ddb, Tables tables) {
        String table = indexedTable(ddb, tables);
        ResourceNotFoundException e = catchThrowableOfType(
                ResourceNotFoundException.class,
                () -> ddb.updateTable(b -> b.tableName(table).globalSecondaryIndexUpdates(delete("no-such-index"))));
        assertThat(e).as("expected a ResourceNotFoundException").isNotNull();
        assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ResourceNotFoundException");
        assertThat(e.statusCode()).isEqualTo(400);
        assertThat(e.awsErrorDetails().errorMessage()).contains("no-such-index");
    }

    // DynamoDB knows the name but not as a GSI's (CAT; a scylladb alternator comment says the same). No prefix.
    @Test
    void deleteOfLocalIndex(DynamoDbClient ddb, Tables tables) {
        String table = indexedTable(ddb, tables);
        assertValidation(
                "Cannot delete an index that is not a GlobalSecondaryIndex: by-ls",
                () -> ddb.updateTable(b -> b.tableName(table).globalSecondaryIndexUpdates(delete("by-ls"))));
    }

    @Test
    void updateOfLocalIndex(DynamoDbClient ddb, Tables tables) {
        String table = indexedTable(ddb, tables);
        assertValidation(
                "Cannot update an index that is not a GlobalSecondaryIndex: by-ls",
                () -> ddb.updateTable(b -> b.tableName(table).globalSecondaryIndexUpdates(update("by-ls", 100))));
    }

    // CAT DDB-TABLE-162: required even when the key attribute (here the table's sort key) is defined already.
    @Test
    void createWithoutAttributeDefinitions(DynamoDbClient ddb, Tables tables) {
        String table = indexedTable(ddb, tables);
        assertValidation(
                INVALID + "AttributeDefinitions is not specified for index: by-sk",
                () -> ddb.updateTable(b -> b.tableName(table).globalSecondaryIndexUpdates(create("by-sk", "sk"))));
    }

    // alexdebrie/dynamodbguide.com#16 (UpdateTable against DynamoDB; "attribute have" is DynamoDB's grammar). The
    // definitions given are only the ones the request needs: others, like g2 here, are ignored (CAT DDB-TABLE-162).
    @Test
    void createWithUndefinedKeyAttribute(DynamoDbClient ddb, Tables tables) {
        String table = indexedTable(ddb, tables);
        assertValidation(
                "Invalid KeySchema: Some index key attribute have no definition",
                () -> ddb.updateTable(b -> b.tableName(table)
                        .attributeDefinitions(attr("g2", S))
                        .globalSecondaryIndexUpdates(create("by-h", "h"))));
    }

    @Test
    void emptyUpdateObject(DynamoDbClient ddb, Tables tables) {
        String table = indexedTable(ddb, tables);
        assertValidation(
                INVALID + "One of GlobalSecondaryIndexUpdate.Update, GlobalSecondaryIndexUpdate.Create,"
                        + " GlobalSecondaryIndexUpdate.Delete must not be null",
                () -> ddb.updateTable(b -> b.tableName(table)
                        .globalSecondaryIndexUpdates(
                                GlobalSecondaryIndexUpdate.builder().build())));
    }

    @Test
    void twoActionsInOneUpdateObject(DynamoDbClient ddb, Tables tables) {
        String table = indexedTable(ddb, tables);
        GlobalSecondaryIndexUpdate both =
                update("by-g", 100).toBuilder().delete(d -> d.indexName("by-g")).build();
        assertValidation(
                INVALID + "Only one global secondary index action is allowed per GlobalSecondaryIndexUpdate object",
                () -> ddb.updateTable(b -> b.tableName(table).globalSecondaryIndexUpdates(both)));
    }

    // CAT DDB-TABLE-160 saw this for [Update, Update], [Delete, Update] and [Delete, Create] of one index. Two
    // Updates are used here: with a Create and a Delete the one-at-a-time limit might answer first.
    @Test
    void twoActionsOnOneIndex(DynamoDbClient ddb, Tables tables) {
        String table = indexedTable(ddb, tables);
        assertValidation(
                INVALID + "Only one global secondary index update per index is allowed simultaneously. Index: by-g",
                () -> ddb.updateTable(
                        b -> b.tableName(table).globalSecondaryIndexUpdates(update("by-g", 100), update("by-g", 200))));
    }

    // Worded unlike CreateTable's "ProvisionedThroughput should not be specified for index: ..." (CAT catalogue).
    @Test
    void createWithThroughputOnOnDemandTable(DynamoDbClient ddb, Tables tables) {
        String table = indexedTable(ddb, tables);
        GlobalSecondaryIndexUpdate withThroughput = create(newIndex("by-sk", "sk")
                .provisionedThroughput(t -> t.readCapacityUnits(1L).writeCapacityUnits(1L)));
        assertValidation(
                INVALID + "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified for index: by-sk when"
                        + " BillingMode is PAY_PER_REQUEST",
                () -> ddb.updateTable(b -> b.tableName(table)
                        .attributeDefinitions(attr("sk", S))
                        .globalSecondaryIndexUpdates(withThroughput)));
    }

    // Worded unlike CreateTable's "ProvisionedThroughput is not specified for index: ..." (CAT DDB-TABLE-152).
    @Test
    void createWithoutThroughputOnProvisionedTable(DynamoDbClient ddb, Tables tables) {
        String table = tables.create(CreateTableRequest.builder()
                .attributeDefinitions(attr("pk", S))
                .keySchema(key("pk", HASH))
                .billingMode(BillingMode.PROVISIONED)
                .provisionedThroughput(t -> t.readCapacityUnits(1L).writeCapacityUnits(1L)));
        assertValidation(
                INVALID + "Both ReadCapacityUnits and WriteCapacityUnits must be specified for index: gsi-nopt",
                () -> ddb.updateTable(b -> b.tableName(table)
                        .attributeDefinitions(attr("g", S))
                        .globalSecondaryIndexUpdates(create("gsi-nopt", "g"))));
    }

    // CAT DDB-TABLE-152: an on-demand table's GSI takes only OnDemandThroughput or WarmThroughput changes.
    @Test
    void updateThroughputOnOnDemandTable(DynamoDbClient ddb, Tables tables) {
        String table = indexedTable(ddb, tables);
        GlobalSecondaryIndexUpdate throughput = GlobalSecondaryIndexUpdate.builder()
                .update(u -> u.indexName("by-g")
                        .provisionedThroughput(t -> t.readCapacityUnits(1L).writeCapacityUnits(1L)))
                .build();
        assertValidation(
                INVALID + "The only Updates for index: by-g when TableThroughputMode is PAY_PER_REQUEST can be to"
                        + " OnDemandThroughput, WarmThroughput",
                () -> ddb.updateTable(b -> b.tableName(table).globalSecondaryIndexUpdates(throughput)));
    }

    // CAT DDB-TABLE-359 and DDB-TABLE-160: alone, an empty list counts as no change at all ("At least one of ... is
    // required"); beside a real change (here a re-sent BillingMode, itself accepted) the empty list is refused, and
    // the other change is not applied.
    @Test
    void emptyUpdateListWithAnotherChange(DynamoDbClient ddb, Tables tables) {
        String table = indexedTable(ddb, tables);
        assertValidation(
                INVALID + "List of GlobalSecondaryIndexUpdates is empty",
                () -> ddb.updateTable(b -> b.tableName(table)
                        .billingMode(BillingMode.PAY_PER_REQUEST)
                        .globalSecondaryIndexUpdates(List.of())));
    }
}
