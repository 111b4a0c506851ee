package io.partita.storage.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.KeySchema;
import io.partita.protocol.model.PrimaryKey;
import io.partita.protocol.model.ScalarType;
import io.partita.storage.StorageConfig;
import io.partita.storage.StorageEngine;
import io.partita.storage.TestTables;
import io.partita.storage.capacity.CapacityConfig;
import io.partita.storage.capacity.ThroughputMode;
import io.partita.storage.item.WriteDecision;
import io.partita.storage.partition.MutableClock;
import io.partita.storage.table.TableCatalog.Table;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The ClientRequestTokens of write transactions, kept in the store with the transactions' writes. */
class TransactionTokensIT {
    private static final KeySchema SCHEMA = new KeySchema(new KeySchema.KeyAttribute("pk", ScalarType.S), null);
    private static final byte[] DIGEST = {1, 2, 3};

    private static StorageConfig config(Path dir, MutableClock clock) {
        return StorageConfig.disk(dir)
                .withCapacity(
                        CapacityConfig.defaults().withMode(ThroughputMode.OFF).withClock(clock))
                .withTtlIntervalMillis(0);
    }

    private static PrimaryKey key(String pk) {
        return new PrimaryKey(new AttributeValue.S(pk), null);
    }

    private static Transactions.WriteAction put(Table t, String pk, String v) {
        Map<String, AttributeValue> item = Map.of("pk", new AttributeValue.S(pk), "v", new AttributeValue.S(v));
        return new Transactions.WriteAction(t, key(pk), old -> new WriteDecision.Put(item), false);
    }

    private static Transactions.WriteAction refused(Table t, String pk) {
        return new Transactions.WriteAction(
                t,
                key(pk),
                old -> new WriteDecision.Reject(
                        new ApiException(ErrorCode.CONDITIONAL_CHECK_FAILED, "The conditional request failed")),
                false);
    }

    private static TransactionTokens.Recorder token(String token, long at, List<long[]> seen) {
        return new TransactionTokens.Recorder() {
            @Override
            public String scope() {
                return "TransactWriteItems";
            }

            @Override
            public String token() {
                return token;
            }

            @Override
            public TransactionTokens.Token record(long[] bytes) {
                seen.add(bytes);
                return new TransactionTokens.Token(
                        "TransactWriteItems", token, DIGEST, at, token.getBytes(StandardCharsets.UTF_8));
            }
        };
    }

    @Test
    void aTokenIsKeptExactlyWhenItsTransactionWritesAndOutlivesTheProcess(@TempDir Path dir) {
        MutableClock clock =
                new MutableClock(Instant.parse("2026-06-01T00:00:00Z").toEpochMilli());
        List<long[]> seen = new ArrayList<>();
        try (StorageEngine e = StorageEngine.open(config(dir, clock))) {
            Table t = e.tables().create(TestTables.onDemand("t", SCHEMA));
            Transactions tx = e.writes().transactions();
            TransactionTokens tokens = e.writes().tokens();

            Transactions.WriteResult written =
                    tx.writeRecorded(List.of(put(t, "a", "1"), put(t, "b", "1")), token("one", clock.millis(), seen));
            assertThat(written.committed()).isTrue();
            assertThat(seen).singleElement().satisfies(b -> assertThat(b).containsExactly(-1, -1));
            TransactionTokens.Token kept = tokens.find("TransactWriteItems", "one");
            assertThat(kept.digest()).isEqualTo(DIGEST);
            assertThat(kept.completedAt()).isEqualTo(clock.millis());
            assertThat(new String(kept.result(), StandardCharsets.UTF_8)).isEqualTo("one");
            // Kept apart by operation.
            assertThat(tokens.find("ExecuteTransaction", "one")).isNull();

            // A transaction whose writes change nothing keeps its token; a cancelled one, and one of checks only, none.
            Transactions.WriteAction unchanged =
                    new Transactions.WriteAction(t, key("a"), old -> new WriteDecision.Keep(), false);
            assertThat(tx.writeRecorded(List.of(unchanged), token("same", 0, seen))
                            .committed())
                    .isTrue();
            assertThat(tokens.find("TransactWriteItems", "same")).isNotNull();
            seen.clear();
            seen.add(new long[] {-1, -1});
            assertThat(tx.writeRecorded(List.of(put(t, "c", "1"), refused(t, "d")), token("two", 0, seen))
                            .committed())
                    .isFalse();
            Transactions.WriteAction check =
                    new Transactions.WriteAction(t, key("a"), old -> new WriteDecision.Keep(), true);
            assertThat(tx.writeRecorded(List.of(check), token("three", 0, seen)).committed())
                    .isTrue();
            assertThat(tokens.find("TransactWriteItems", "two")).isNull();
            assertThat(tokens.find("TransactWriteItems", "three")).isNull();
            assertThat(seen).hasSize(1);
        }
        try (StorageEngine e = StorageEngine.open(config(dir, clock))) {
            assertThat(e.writes().tokens().find("TransactWriteItems", "one"))
                    .as("after a restart")
                    .isNotNull();
        }
    }

    @Test
    void tokensAreForgottenOnceTheirTenMinutesHavePassedOldestFirst(@TempDir Path dir) {
        MutableClock clock =
                new MutableClock(Instant.parse("2026-06-01T00:00:00Z").toEpochMilli());
        try (StorageEngine e = StorageEngine.open(config(dir, clock))) {
            Table t = e.tables().create(TestTables.onDemand("t", SCHEMA));
            Transactions tx = e.writes().transactions();
            TransactionTokens tokens = e.writes().tokens();
            long start = clock.millis();
            int many = TransactionTokens.FORGET_BATCH + 5;
            for (int i = 0; i < many; i++) {
                tx.writeRecorded(List.of(put(t, "k" + i, "1")), token("old-" + i, start, new ArrayList<>()));
            }
            tx.writeRecorded(List.of(put(t, "new", "1")), token("new", start + 1_000, new ArrayList<>()));

            assertThat(tokens.forget(start + TransactionTokens.WINDOW_MILLIS - 1, 10))
                    .isZero();
            assertThat(tokens.find("TransactWriteItems", "old-0")).isNotNull();
            // Two batches for the old ones, and the new one's ten minutes have not passed.
            assertThat(tokens.forget(start + TransactionTokens.WINDOW_MILLIS, 1))
                    .isEqualTo(TransactionTokens.FORGET_BATCH);
            assertThat(tokens.forget(start + TransactionTokens.WINDOW_MILLIS + 999, 10))
                    .isEqualTo(5);
            assertThat(tokens.find("TransactWriteItems", "old-0")).isNull();
            assertThat(tokens.find("TransactWriteItems", "old-" + (many - 1))).isNull();
            assertThat(tokens.find("TransactWriteItems", "new")).isNotNull();
            assertThat(tokens.forget(start + 1_000 + TransactionTokens.WINDOW_MILLIS, 10))
                    .isEqualTo(1);
            assertThat(tokens.find("TransactWriteItems", "new")).isNull();

            // A token used again after its window keeps its new record when the old one's time comes.
            long later = start + 2 * TransactionTokens.WINDOW_MILLIS;
            tx.writeRecorded(List.of(put(t, "x", "1")), token("again", later, new ArrayList<>()));
            tx.writeRecorded(List.of(put(t, "x", "2")), token("again", later + 5_000, new ArrayList<>()));
            assertThat(tokens.forget(later + TransactionTokens.WINDOW_MILLIS, 10))
                    .isEqualTo(1);
            assertThat(tokens.find("TransactWriteItems", "again").completedAt()).isEqualTo(later + 5_000);
            assertThat(tokens.forget(later + 5_000 + TransactionTokens.WINDOW_MILLIS, 10))
                    .isEqualTo(1);
            assertThat(tokens.find("TransactWriteItems", "again")).isNull();
        }
    }
}
