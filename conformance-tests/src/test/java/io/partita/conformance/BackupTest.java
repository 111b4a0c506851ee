package io.partita.conformance;

import static io.partita.conformance.support.AttributeValues.item;
import static io.partita.conformance.support.AttributeValues.n;
import static io.partita.conformance.support.AttributeValues.s;
import static org.assertj.core.api.Assertions.assertThat;

import io.partita.conformance.support.ApiErrors;
import io.partita.conformance.support.Endpoint;
import io.partita.conformance.support.Indexes;
import io.partita.conformance.support.PartitaExtension;
import io.partita.conformance.support.Tables;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.BackupDetails;
import software.amazon.awssdk.services.dynamodb.model.BackupNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.BackupStatus;
import software.amazon.awssdk.services.dynamodb.model.BackupSummary;
import software.amazon.awssdk.services.dynamodb.model.BackupType;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndex;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.LocalSecondaryIndex;
import software.amazon.awssdk.services.dynamodb.model.ProjectionType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.StreamViewType;
import software.amazon.awssdk.services.dynamodb.model.TableAlreadyExistsException;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.model.TableNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;

/**
 * On-demand backup and restore ("Using on-demand backup and restore for DynamoDB", the API reference of each
 * operation): a backup is the table's items at one moment, with its indexes and settings; a restore makes a new table
 * of them, overrides applied; the errors in DynamoDB's words.
 */
@ExtendWith(PartitaExtension.class)
@SuppressWarnings("unchecked") // the SDK's varargs of builder lambdas
class BackupTest {
    private final DynamoDbClient ddb = Endpoint.client();

    /** Orders by customer (pk) and order id (sk), with an LSI on total, a GSI on status and a stream. */
    private static String orders(Tables tables) {
        String t = tables.create(CreateTableRequest.builder()
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .attributeDefinitions(
                        a -> a.attributeName("customer").attributeType(ScalarAttributeType.S),
                        a -> a.attributeName("order").attributeType(ScalarAttributeType.S),
                        a -> a.attributeName("total").attributeType(ScalarAttributeType.N),
                        a -> a.attributeName("status").attributeType(ScalarAttributeType.S))
                .keySchema(
                        k -> k.attributeName("customer").keyType(KeyType.HASH),
                        k -> k.attributeName("order").keyType(KeyType.RANGE))
                .localSecondaryIndexes(LocalSecondaryIndex.builder()
                        .indexName("byTotal")
                        .keySchema(
                                k -> k.attributeName("customer").keyType(KeyType.HASH),
                                k -> k.attributeName("total").keyType(KeyType.RANGE))
                        .projection(p -> p.projectionType(ProjectionType.ALL))
                        .build())
                .globalSecondaryIndexes(GlobalSecondaryIndex.builder()
                        .indexName("byStatus")
                        .keySchema(k -> k.attributeName("status").keyType(KeyType.HASH))
                        .projection(p -> p.projectionType(ProjectionType.KEYS_ONLY))
                        .build())
                .streamSpecification(st -> st.streamEnabled(true).streamViewType(StreamViewType.NEW_IMAGE)));
        return t;
    }

    private void order(String t, int i, String status) {
        ddb.putItem(p -> p.tableName(t)
                .item(item(
                        "customer",
                        s("c" + (i % 3)),
                        "order",
                        s(String.format("o%03d", i)),
                        "total",
                        n(String.valueOf(i)),
                        "status",
                        s(status))));
    }

    private List<Map<String, software.amazon.awssdk.services.dynamodb.model.AttributeValue>> scan(String t) {
        List<Map<String, software.amazon.awssdk.services.dynamodb.model.AttributeValue>> out = new ArrayList<>();
        ddb.scanPaginator(r -> r.tableName(t).consistentRead(true)).items().forEach(out::add);
        return out;
    }

    private String restoreName(Tables tables) {
        String name = io.partita.conformance.support.Tables.uniqueName("restored");
        tables.track(name);
        return name;
    }

    @Test
    void aRestoreHasTheItemsOfTheBackupsMomentWithItsIndexes(Tables tables) {
        String t = orders(tables);
        for (int i = 0; i < 30; i++) {
            order(t, i, i % 2 == 0 ? "OPEN" : "SHIPPED");
        }
        BackupDetails created = ddb.createBackup(b -> b.tableName(t).backupName("before-migration"))
                .backupDetails();
        assertThat(created.backupArn())
                .matches("arn:aws[a-z-]*:dynamodb:[a-z0-9-]+:\\d{12}:table/" + t + "/backup/\\d{14}-[0-9a-f]{8}");
        assertThat(created.backupName()).isEqualTo("before-migration");
        assertThat(created.backupType()).isEqualTo(BackupType.USER);
        assertThat(created.backupStatus()).isIn(BackupStatus.CREATING, BackupStatus.AVAILABLE);
        // Changes after the backup are not in it.
        order(t, 100, "OPEN");
        ddb.deleteItem(d -> d.tableName(t).key(Map.of("customer", s("c0"), "order", s("o000"))));

        var described =
                ddb.describeBackup(b -> b.backupArn(created.backupArn())).backupDescription();
        assertThat(described.backupDetails().backupStatus()).isEqualTo(BackupStatus.AVAILABLE);
        assertThat(described.sourceTableDetails().tableName()).isEqualTo(t);
        assertThat(described.sourceTableDetails().itemCount()).isEqualTo(30L);
        assertThat(described.sourceTableDetails().billingMode()).isEqualTo(BillingMode.PAY_PER_REQUEST);
        assertThat(described.sourceTableFeatureDetails().globalSecondaryIndexes())
                .extracting(g -> g.indexName())
                .containsExactly("byStatus");
        assertThat(described.sourceTableFeatureDetails().localSecondaryIndexes())
                .extracting(l -> l.indexName())
                .containsExactly("byTotal");

        String target = restoreName(tables);
        TableDescription restoring = ddb.restoreTableFromBackup(
                        r -> r.targetTableName(target).backupArn(created.backupArn()))
                .tableDescription();
        assertThat(restoring.tableName()).isEqualTo(target);
        assertThat(restoring.tableStatus()).isEqualTo(TableStatus.CREATING);
        assertThat(restoring.restoreSummary().sourceBackupArn()).isEqualTo(created.backupArn());
        assertThat(restoring.restoreSummary().sourceTableArn()).endsWith(":table/" + t);
        assertThat(restoring.restoreSummary().restoreInProgress()).isTrue();
        ddb.waiter().waitUntilTableExists(w -> w.tableName(target));
        Indexes.await(ddb, target);

        var items = scan(target);
        assertThat(items).hasSize(30);
        assertThat(items).anySatisfy(i -> assertThat(i.get("order").s()).isEqualTo("o000"));
        assertThat(items).noneSatisfy(i -> assertThat(i.get("order").s()).isEqualTo("o100"));
        assertThat(ddb.query(q -> q.tableName(target)
                                .indexName("byStatus")
                                .keyConditionExpression("#s = :s")
                                .expressionAttributeNames(Map.of("#s", "status"))
                                .expressionAttributeValues(Map.of(":s", s("OPEN"))))
                        .count())
                .isEqualTo(15);
        assertThat(ddb.query(q -> q.tableName(target)
                                .indexName("byTotal")
                                .keyConditionExpression("customer = :c AND #t >= :t")
                                .expressionAttributeNames(Map.of("#t", "total"))
                                .expressionAttributeValues(Map.of(":c", s("c1"), ":t", n("25"))))
                        .items())
                .extracting(i -> i.get("order").s())
                .containsExactly("o025", "o028");
        // Not carried over: the stream ("Restoring a DynamoDB table from a backup").
        TableDescription restored = ddb.describeTable(d -> d.tableName(target)).table();
        assertThat(restored.streamSpecification()).isNull();
        assertThat(restored.billingModeSummary().billingMode()).isEqualTo(BillingMode.PAY_PER_REQUEST);
        assertThat(restored.itemCount()).isEqualTo(30L);
        ddb.deleteBackup(r -> r.backupArn(created.backupArn()));
    }

    @Test
    void overridesChangeTheBillingModeAndDropIndexes(Tables tables) {
        String t = orders(tables);
        order(t, 1, "OPEN");
        String arn = ddb.createBackup(b -> b.tableName(t).backupName("override-test"))
                .backupDetails()
                .backupArn();
        String target = restoreName(tables);
        ddb.restoreTableFromBackup(r -> r.targetTableName(target)
                .backupArn(arn)
                .billingModeOverride(BillingMode.PROVISIONED)
                .provisionedThroughputOverride(p -> p.readCapacityUnits(7L).writeCapacityUnits(3L))
                .globalSecondaryIndexOverride(List.of()));
        ddb.waiter().waitUntilTableExists(w -> w.tableName(target));
        TableDescription d = ddb.describeTable(r -> r.tableName(target)).table();
        assertThat(d.provisionedThroughput().readCapacityUnits()).isEqualTo(7L);
        assertThat(d.provisionedThroughput().writeCapacityUnits()).isEqualTo(3L);
        assertThat(d.hasGlobalSecondaryIndexes()).isFalse();
        assertThat(d.localSecondaryIndexes()).extracting(l -> l.indexName()).containsExactly("byTotal");
        assertThat(scan(target)).hasSize(1);
        ddb.deleteBackup(r -> r.backupArn(arn));
    }

    @Test
    void listPagesAndDeleteRemoves(Tables tables) {
        String a = tables.hashTable("id", ScalarAttributeType.S);
        String b = tables.hashTable("id", ScalarAttributeType.S);
        List<String> arns = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String name = "backup-a" + i;
            arns.add(ddb.createBackup(r -> r.tableName(a).backupName(name))
                    .backupDetails()
                    .backupArn());
        }
        String other = ddb.createBackup(r -> r.tableName(b).backupName("backup-b0"))
                .backupDetails()
                .backupArn();
        List<String> listed = new ArrayList<>();
        String start = null;
        int pages = 0;
        do {
            String from = start;
            var page = ddb.listBackups(r -> r.tableName(a).limit(1).exclusiveStartBackupArn(from));
            page.backupSummaries().forEach(s -> listed.add(s.backupArn()));
            assertThat(page.backupSummaries())
                    .allSatisfy(s -> assertThat(s.tableName()).isEqualTo(a));
            start = page.lastEvaluatedBackupArn();
            pages++;
        } while (start != null && pages < 10);
        assertThat(listed).containsExactlyElementsOf(arns);
        // TimeRangeLowerBound is inclusive, TimeRangeUpperBound exclusive, both by creation time.
        java.time.Instant firstCreated = ddb.describeBackup(r -> r.backupArn(arns.get(0)))
                .backupDescription()
                .backupDetails()
                .backupCreationDateTime();
        assertThat(ddb.listBackups(r -> r.tableName(a).timeRangeUpperBound(firstCreated))
                        .backupSummaries())
                .isEmpty();
        assertThat(ddb.listBackups(r -> r.tableName(a).timeRangeLowerBound(firstCreated))
                        .backupSummaries())
                .hasSize(3);
        BackupSummary first =
                ddb.listBackups(r -> r.tableName(a)).backupSummaries().get(0);
        assertThat(first.backupStatus()).isEqualTo(BackupStatus.AVAILABLE);
        assertThat(first.backupName()).isEqualTo("backup-a0");

        var deleted = ddb.deleteBackup(r -> r.backupArn(arns.get(1))).backupDescription();
        assertThat(deleted.backupDetails().backupStatus()).isEqualTo(BackupStatus.DELETED);
        ApiErrors.assertError(
                BackupNotFoundException.class,
                "BackupNotFoundException",
                "Backup not found: " + arns.get(1),
                () -> ddb.describeBackup(r -> r.backupArn(arns.get(1))));
        ApiErrors.assertError(
                BackupNotFoundException.class,
                "BackupNotFoundException",
                "Backup not found: " + arns.get(1),
                () -> ddb.deleteBackup(r -> r.backupArn(arns.get(1))));
        assertThat(ddb.listBackups(r -> r.tableName(a)).backupSummaries())
                .extracting(BackupSummary::backupArn)
                .containsExactly(arns.get(0), arns.get(2));
        for (String arn : List.of(arns.get(0), arns.get(2))) {
            ddb.deleteBackup(r -> r.backupArn(arn));
        }
        assertThat(ddb.listBackups(r -> r.tableName(a)).backupSummaries()).isEmpty();
        assertThat(ddb.listBackups(r -> r.tableName(b)).backupSummaries())
                .extracting(BackupSummary::backupArn)
                .containsExactly(other);
        ddb.deleteBackup(r -> r.backupArn(other));
    }

    @Test
    void errorsInDynamoDbsWords(Tables tables) {
        String t = tables.hashTable("id", ScalarAttributeType.S);
        ApiErrors.assertError(
                TableNotFoundException.class,
                "TableNotFoundException",
                "Table not found: no-such-table-here",
                () -> ddb.createBackup(r -> r.tableName("no-such-table-here").backupName("x1x")));
        ApiErrors.assertValidation(
                "1 validation error detected: Value 'ab' at 'backupName' failed to satisfy constraint: Member must"
                        + " have length greater than or equal to 3",
                () -> ddb.createBackup(r -> r.tableName(t).backupName("ab")));
        ApiErrors.assertValidation(
                "Invalid Backup ARN",
                () -> ddb.describeBackup(r -> r.backupArn("arn:aws:dynamodb:us-east-1:123456789012:table/" + t)));
        String arn = ddb.createBackup(r -> r.tableName(t).backupName("errs"))
                .backupDetails()
                .backupArn();
        ApiErrors.assertError(
                TableAlreadyExistsException.class,
                "TableAlreadyExistsException",
                "Table already exists: " + t,
                () -> ddb.restoreTableFromBackup(r -> r.targetTableName(t).backupArn(arn)));
        String target = restoreName(tables);
        ApiErrors.assertValidation(
                "Cannot override ProvisionedThroughput unless BillingMode is PROVISIONED",
                () -> ddb.restoreTableFromBackup(r -> r.targetTableName(target)
                        .backupArn(arn)
                        .provisionedThroughputOverride(
                                p -> p.readCapacityUnits(1L).writeCapacityUnits(1L))));
        ApiErrors.assertValidation(
                "Must override ProvisionedThroughput if BillingMode is overridden to PROVISIONED",
                () -> ddb.restoreTableFromBackup(
                        r -> r.targetTableName(target).backupArn(arn).billingModeOverride(BillingMode.PROVISIONED)));
        ApiErrors.assertValidation(
                "Index nope does not match a secondary index that existed in the source table and cannot be created"
                        + " during the restore operation",
                () -> ddb.restoreTableFromBackup(r -> r.targetTableName(target)
                        .backupArn(arn)
                        .globalSecondaryIndexOverride(GlobalSecondaryIndex.builder()
                                .indexName("nope")
                                .keySchema(k -> k.attributeName("id").keyType(KeyType.HASH))
                                .projection(p -> p.projectionType(ProjectionType.ALL))
                                .build())));
        // None of the refusals made a table.
        assertThat(ddb.listTables().tableNames()).doesNotContain(target);
        ddb.deleteBackup(r -> r.backupArn(arn));
    }
}
