package io.partita.conformance;

import static io.partita.conformance.support.AttributeValues.item;
import static io.partita.conformance.support.AttributeValues.n;
import static io.partita.conformance.support.AttributeValues.s;
import static org.assertj.core.api.Assertions.assertThat;

import io.partita.conformance.support.ApiErrors;
import io.partita.conformance.support.Endpoint;
import io.partita.conformance.support.IsolatedPartita;
import io.partita.conformance.support.PartitaExtension;
import io.partita.conformance.support.Tables;
import io.partita.conformance.support.TestClock;
import io.partita.storage.StorageConfig;
import io.partita.storage.capacity.CapacityConfig;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.ContinuousBackupsDescription;
import software.amazon.awssdk.services.dynamodb.model.ContinuousBackupsStatus;
import software.amazon.awssdk.services.dynamodb.model.InvalidRestoreTimeException;
import software.amazon.awssdk.services.dynamodb.model.PointInTimeRecoveryStatus;
import software.amazon.awssdk.services.dynamodb.model.PointInTimeRecoveryUnavailableException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableNotFoundException;

/**
 * Point-in-time recovery ("Point-in-time recovery for DynamoDB", UpdateContinuousBackups, DescribeContinuousBackups,
 * RestoreTableToPointInTime): enabled per table with a recovery period of 1 to 35 days, a restore to any moment of
 * the window, the errors in DynamoDB's words.
 */
@ExtendWith(PartitaExtension.class)
class PointInTimeRecoveryTest {
    private final DynamoDbClient ddb = Endpoint.client();

    private static ContinuousBackupsDescription update(DynamoDbClient ddb, String t, boolean on, Integer days) {
        return ddb.updateContinuousBackups(u -> u.tableName(t)
                        .pointInTimeRecoverySpecification(
                                p -> p.pointInTimeRecoveryEnabled(on).recoveryPeriodInDays(days)))
                .continuousBackupsDescription();
    }

    @Test
    void enableChangeTheWindowAndDisable(Tables tables) {
        String t = tables.hashTable("id", ScalarAttributeType.S);
        var off = ddb.describeContinuousBackups(d -> d.tableName(t)).continuousBackupsDescription();
        assertThat(off.pointInTimeRecoveryDescription().pointInTimeRecoveryStatus())
                .isEqualTo(PointInTimeRecoveryStatus.DISABLED);
        var on = update(ddb, t, true, null);
        assertThat(on.continuousBackupsStatus()).isEqualTo(ContinuousBackupsStatus.ENABLED);
        assertThat(on.pointInTimeRecoveryDescription().pointInTimeRecoveryStatus())
                .isEqualTo(PointInTimeRecoveryStatus.ENABLED);
        assertThat(on.pointInTimeRecoveryDescription().recoveryPeriodInDays()).isEqualTo(35);
        Instant earliest = on.pointInTimeRecoveryDescription().earliestRestorableDateTime();
        assertThat(earliest).isNotNull();
        assertThat(on.pointInTimeRecoveryDescription().latestRestorableDateTime())
                .isAfterOrEqualTo(earliest);
        // The period changes in place; the window still starts when PITR was enabled.
        var shorter = update(ddb, t, true, 7);
        assertThat(shorter.pointInTimeRecoveryDescription().recoveryPeriodInDays())
                .isEqualTo(7);
        assertThat(shorter.pointInTimeRecoveryDescription().earliestRestorableDateTime())
                .isEqualTo(earliest);
        var disabled = update(ddb, t, false, null);
        assertThat(disabled.pointInTimeRecoveryDescription().pointInTimeRecoveryStatus())
                .isEqualTo(PointInTimeRecoveryStatus.DISABLED);
        assertThat(disabled.pointInTimeRecoveryDescription().recoveryPeriodInDays())
                .isNull();
    }

    @Test
    void errorsInDynamoDbsWords(Tables tables) {
        String t = tables.hashTable("id", ScalarAttributeType.S);
        ApiErrors.assertError(
                TableNotFoundException.class,
                "TableNotFoundException",
                "Table not found: no-such-table-here",
                () -> ddb.describeContinuousBackups(d -> d.tableName("no-such-table-here")));
        ApiErrors.assertValidation(
                "Invalid Request: Cannot specify RecoveryPeriodInDays when disabling point-in-time recovery.",
                () -> update(ddb, t, false, 5));
        ApiErrors.assertValidation(
                "1 validation error detected: Value '36' at 'pointInTimeRecoverySpecification.recoveryPeriodInDays'"
                        + " failed to satisfy constraint: Member must have value less than or equal to 35",
                () -> update(ddb, t, true, 36));
        String target = Tables.uniqueName("restored");
        tables.track(target);
        ApiErrors.assertError(
                PointInTimeRecoveryUnavailableException.class,
                "PointInTimeRecoveryUnavailableException",
                "Point in time recovery is not enabled for table '" + t + "'",
                () -> ddb.restoreTableToPointInTime(
                        r -> r.sourceTableName(t).targetTableName(target).useLatestRestorableTime(true)));
        ApiErrors.assertValidation(
                "Invalid Request: Either one of RestoreDateTime or UseLatestRestorableTime must be specified, but not"
                        + " both",
                () -> ddb.restoreTableToPointInTime(r -> r.sourceTableName(t).targetTableName(target)));
        update(ddb, t, true, null);
        Throwable early = org.assertj.core.api.Assertions.catchThrowable(() -> ddb.restoreTableToPointInTime(r ->
                r.sourceTableName(t).targetTableName(target).restoreDateTime(Instant.parse("2020-01-01T00:00:00Z"))));
        assertThat(early).isInstanceOf(InvalidRestoreTimeException.class);
        assertThat(((InvalidRestoreTimeException) early).awsErrorDetails().errorMessage())
                .startsWith("RestoreDateTime '2020-01-01T00:00:00Z' must be within EarliestRestorableDateTime '");
        assertThat(ddb.listTables().tableNames()).doesNotContain(target);
    }

    @Test
    void theLatestRestorableTimeHasEveryWrite(Tables tables) {
        String t = tables.hashTable("id", ScalarAttributeType.S);
        update(ddb, t, true, null);
        for (int i = 0; i < 10; i++) {
            String id = "k" + i;
            ddb.putItem(p -> p.tableName(t).item(item("id", s(id), "v", n("1"))));
        }
        String target = Tables.uniqueName("restored");
        tables.track(target);
        var restoring = ddb.restoreTableToPointInTime(
                        r -> r.sourceTableName(t).targetTableName(target).useLatestRestorableTime(true))
                .tableDescription();
        assertThat(restoring.restoreSummary().sourceTableArn()).endsWith(":table/" + t);
        assertThat(restoring.restoreSummary().restoreInProgress()).isTrue();
        ddb.waiter().waitUntilTableExists(w -> w.tableName(target));
        assertThat(ddb.scan(s -> s.tableName(target).consistentRead(true)).count())
                .isEqualTo(10);
        // PITR itself is not carried over.
        assertThat(ddb.describeContinuousBackups(d -> d.tableName(target))
                        .continuousBackupsDescription()
                        .pointInTimeRecoveryDescription()
                        .pointInTimeRecoveryStatus())
                .isEqualTo(PointInTimeRecoveryStatus.DISABLED);
    }

    /** With the server's clock in the test's hand: a restore to a moment between writes has the earlier ones only. */
    @Test
    @Tag("partita-only")
    void aRestoreToAMomentHasWhatTheTableHeldThen() {
        TestClock clock = new TestClock(Instant.parse("2026-06-01T00:00:00Z"));
        try (IsolatedPartita partita = IsolatedPartita.start(
                StorageConfig.memory().withCapacity(CapacityConfig.defaults().withClock(clock)))) {
            DynamoDbClient client = partita.client();
            String t = partita.tables().hashTable("id", ScalarAttributeType.S);
            update(client, t, true, 1);
            client.putItem(p -> p.tableName(t).item(item("id", s("a"), "v", n("1"))));
            client.putItem(p -> p.tableName(t).item(item("id", s("b"), "v", n("1"))));
            clock.advance(Duration.ofMinutes(10));
            Instant between = clock.instant();
            clock.advance(Duration.ofMinutes(10));
            client.putItem(p -> p.tableName(t).item(item("id", s("a"), "v", n("2"))));
            client.deleteItem(d -> d.tableName(t).key(Map.of("id", s("b"))));
            client.putItem(p -> p.tableName(t).item(item("id", s("c"), "v", n("1"))));
            String target = "restored-between";
            client.restoreTableToPointInTime(
                    r -> r.sourceTableName(t).targetTableName(target).restoreDateTime(between));
            var items = client.scan(s -> s.tableName(target)).items();
            assertThat(items)
                    .containsExactlyInAnyOrder(item("id", s("a"), "v", n("1")), item("id", s("b"), "v", n("1")));
            // The window is the recovery period: a day on, the first writes are out of reach.
            clock.advance(Duration.ofDays(1).plusMinutes(15));
            ApiErrors.assertError(
                    InvalidRestoreTimeException.class,
                    "InvalidRestoreTimeException",
                    "RestoreDateTime '2026-06-01T00:10:00Z' must be within EarliestRestorableDateTime"
                            + " '2026-06-01T00:35:00Z' and LatestRestorableDateTime '2026-06-02T00:35:00Z'",
                    () -> client.restoreTableToPointInTime(r ->
                            r.sourceTableName(t).targetTableName("too-late").restoreDateTime(between)));
        }
    }
}
