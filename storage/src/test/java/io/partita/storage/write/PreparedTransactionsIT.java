package io.partita.storage.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.KeySchema;
import io.partita.protocol.model.PrimaryKey;
import io.partita.protocol.model.ScalarType;
import io.partita.storage.StorageConfig;
import io.partita.storage.StorageEngine;
import io.partita.storage.TestTables;
import io.partita.storage.item.ConditionalWrite;
import io.partita.storage.item.WriteDecision;
import io.partita.storage.rocks.RocksStore;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.write.PreparedTransactions.Decision;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The parts of transactions over several Raft groups, each group's store on its own: prepare, commit, abort. */
class PreparedTransactionsIT {
    private static final KeySchema SCHEMA = new KeySchema(new KeySchema.KeyAttribute("pk", ScalarType.S), null);
    private static final byte[] BODY = "{\"the\":\"caller's\"}".getBytes(StandardCharsets.UTF_8);
    private static final ApiException FAILED =
            new ApiException(ErrorCode.CONDITIONAL_CHECK_FAILED, "The conditional request failed");

    private static PrimaryKey key(String pk) {
        return new PrimaryKey(new AttributeValue.S(pk), null);
    }

    private static Map<String, AttributeValue> item(String pk, String v) {
        return Map.of("pk", new AttributeValue.S(pk), "v", new AttributeValue.S(v));
    }

    private static Transactions.WriteAction put(Table t, String pk, String v) {
        return new Transactions.WriteAction(t, key(pk), old -> new WriteDecision.Put(item(pk, v)), false);
    }

    /** A put of {@code v} if the item's value is {@code was} (absent: null). */
    private static Transactions.WriteAction putIf(Table t, String pk, String was, String v) {
        return new Transactions.WriteAction(
                t,
                key(pk),
                old -> java.util.Objects.equals(
                                old == null ? null : old.get("v"), was == null ? null : new AttributeValue.S(was))
                        ? new WriteDecision.Put(item(pk, v))
                        : new WriteDecision.Reject(FAILED),
                false);
    }

    private static void write(StorageEngine e, Table t, String pk, String v) {
        e.write(t, key(pk), ConditionalWrite.blind(new WriteDecision.Put(item(pk, v))));
    }

    @Test
    void aPreparedPartHoldsItsItemsUntilItCommitsAndTheDecisionIsKept() {
        try (StorageEngine e = StorageEngine.open(StorageConfig.memory())) {
            Table t = e.tables().create(TestTables.onDemand("t", SCHEMA));
            write(e, t, "a", "0");
            PreparedTransactions p = e.writes().prepared();
            List<Transactions.WriteAction> part = List.of(putIf(t, "a", "0", "1"), put(t, "b", "1"));

            Transactions.WriteResult prepared = p.prepare("tx", true, BODY, part);
            assertThat(prepared.written()).isNull();
            assertThat(prepared.reasons()).isNull();
            assertThat(p.prepared()).singleElement().satisfies(r -> {
                assertThat(r.id()).isEqualTo("tx");
                assertThat(r.body()).isEqualTo(BODY);
            });
            assertThat(e.get(t, key("a"))).as("not written yet").isEqualTo(item("a", "0"));
            // Held: a user's write is a conflict, another transaction too, and so is preparing it again.
            assertThatThrownBy(() -> write(e, t, "a", "x"))
                    .isInstanceOfSatisfying(
                            ApiException.class, x -> assertThat(x.code()).isEqualTo(ErrorCode.TRANSACTION_CONFLICT));
            assertThat(e.writes()
                            .transactions()
                            .write(List.of(put(t, "b", "x")))
                            .reasons())
                    .extracting(Transactions.Reason::code)
                    .containsExactly(Transactions.TRANSACTION_CONFLICT);
            assertThatThrownBy(() -> p.prepare("tx", true, BODY, part))
                    .hasMessage("Transaction tx is prepared already");

            PreparedTransactions.Finished done = p.commit("tx", true, 1_000, (body, ids) -> part);
            assertThat(done.decision()).isEqualTo(Decision.COMMITTED);
            assertThat(done.result().written()).hasSize(2);
            assertThat(done.result().written().get(0).units()).isEqualTo(2.0);
            assertThat(e.get(t, key("a"))).isEqualTo(item("a", "1"));
            assertThat(e.get(t, key("b"))).isEqualTo(item("b", "1"));
            assertThat(p.prepared()).isEmpty();
            write(e, t, "a", "2"); // released

            // Decided once: a late abort (a resolver's) and a repeated commit answer the decision and write nothing.
            assertThat(p.abort("tx", true, 2_000)).isEqualTo(Decision.COMMITTED);
            assertThat(p.commit("tx", true, 2_000, (body, ids) -> part))
                    .isEqualTo(new PreparedTransactions.Finished(Decision.COMMITTED, null));
            assertThat(e.get(t, key("a"))).isEqualTo(item("a", "2"));
            assertThat(p.forgetDecisions(1_000 + PreparedTransactions.DECISION_MILLIS))
                    .isZero();
            assertThat(p.forgetDecisions(1_001 + PreparedTransactions.DECISION_MILLIS))
                    .isEqualTo(1);
        }
    }

    @Test
    void aDecisionCommittedIsUntoldWithItsGroupsUntilTold() {
        try (StorageEngine e = StorageEngine.open(StorageConfig.memory())) {
            Table t = e.tables().create(TestTables.onDemand("t", SCHEMA));
            PreparedTransactions p = e.writes().prepared();
            List<Transactions.WriteAction> part = List.of(put(t, "a", "1"));
            p.prepare("kept", true, BODY, part);
            p.commit("kept", true, 1_000, withGroups(part));
            p.prepare("plain", true, BODY, List.of(put(t, "b", "1")));
            p.commit("plain", true, 1_000, (body, ids) -> List.of(put(t, "b", "1"))); // names no groups
            p.abort("aborted", true, 1_000); // never prepared: decided ABORTED, which has nothing to tell
            assertThat(p.untold(10)).containsExactly(new PreparedTransactions.Untold("kept", List.of("g1", "g2")));
            p.told("kept");
            assertThat(p.untold(10)).isEmpty();
            // Told, the decision is still kept: a late ask finds it.
            assertThat(p.abort("kept", true, 2_000)).isEqualTo(Decision.COMMITTED);
            // An untold decision is forgotten with its decision a day later.
            List<Transactions.WriteAction> late = List.of(put(t, "c", "1"));
            p.prepare("late", true, BODY, late);
            p.commit("late", true, 3_000, withGroups(late));
            assertThat(p.forgetDecisions(3_001 + PreparedTransactions.DECISION_MILLIS))
                    .isEqualTo(4);
            assertThat(p.untold(10)).isEmpty();
        }
    }

    /** A part's actions read again at its commit, {@code part}, whose body names groups g1 and g2. */
    private static PreparedTransactions.ActionsOf withGroups(List<Transactions.WriteAction> part) {
        return new PreparedTransactions.ActionsOf() {
            @Override
            public List<Transactions.WriteAction> read(byte[] body, java.util.Map<String, String> tableIds) {
                return part;
            }

            @Override
            public List<String> participants(byte[] body) {
                return List.of("g1", "g2");
            }
        };
    }

    @Test
    void aCancelledPartRecordsAndHoldsNothingAndAnAbortReleasesAPreparedOne() {
        try (StorageEngine e = StorageEngine.open(StorageConfig.memory())) {
            Table t = e.tables().create(TestTables.onDemand("t", SCHEMA));
            PreparedTransactions p = e.writes().prepared();
            Transactions.WriteResult cancelled =
                    p.prepare("no", false, BODY, List.of(put(t, "a", "1"), putIf(t, "b", "0", "1")));
            assertThat(cancelled.reasons())
                    .extracting(Transactions.Reason::code)
                    .containsExactly(Transactions.NONE, Transactions.CONDITIONAL_CHECK_FAILED);
            assertThat(p.prepared()).isEmpty();
            write(e, t, "b", "0");

            assertThat(p.prepare("yes", false, BODY, List.of(put(t, "a", "1"))).reasons())
                    .isNull();
            assertThat(p.abort("yes", false, 0)).isEqualTo(Decision.ABORTED);
            assertThat(p.prepared()).isEmpty();
            write(e, t, "a", "2");
            assertThat(e.get(t, key("a"))).isEqualTo(item("a", "2"));
            // Another group's commit of a part no longer here (finished before) writes nothing.
            assertThat(p.commit("yes", false, 0, (body, ids) -> List.of(put(t, "a", "1"))))
                    .isEqualTo(new PreparedTransactions.Finished(Decision.COMMITTED, null));
            assertThat(e.get(t, key("a"))).isEqualTo(item("a", "2"));
        }
    }

    /**
     * The deciding group aborts a transaction it has not seen prepared when a resolver asks (its coordinator gone):
     * a prepare that comes later is cancelled, and a commit answers ABORTED.
     */
    @Test
    void aDecidingGroupThatAbortedFirstRefusesALatePrepareAndCommit() {
        try (StorageEngine e = StorageEngine.open(StorageConfig.memory())) {
            Table t = e.tables().create(TestTables.onDemand("t", SCHEMA));
            PreparedTransactions p = e.writes().prepared();
            assertThat(p.abort("late", true, 0)).isEqualTo(Decision.ABORTED);
            List<Transactions.WriteAction> part = List.of(put(t, "a", "1"));
            assertThat(p.prepare("late", true, BODY, part).reasons())
                    .extracting(Transactions.Reason::code)
                    .containsExactly(Transactions.TRANSACTION_CONFLICT);
            assertThat(p.commit("late", true, 0, (body, ids) -> part).decision())
                    .isEqualTo(Decision.ABORTED);
            assertThat(e.get(t, key("a"))).isNull();
            // A commit of a part never prepared there decides ABORTED too.
            assertThat(p.commit("never", true, 0, (body, ids) -> part))
                    .isEqualTo(new PreparedTransactions.Finished(Decision.ABORTED, null));
            assertThat(p.abort("never", true, 0)).isEqualTo(Decision.ABORTED);
        }
    }

    /**
     * Writes whose outcome is not known (their entry proposed, not confirmed in time) leave nothing held for good: a
     * prepare's record keeps its items claimed and is listed until it is aborted; a commit sent again after one of
     * unknown outcome that has applied since finds the part ended and releases its items.
     */
    @Test
    void writesOfUnknownOutcomeLeaveNoItemHeldOnceThePartEnds() {
        try (RocksStore store = RocksStore.open(StorageConfig.memory());
                StorageEngine e = StorageEngine.openOn(store, StorageConfig.memory())) {
            Table t = e.tables().create(TestTables.onDemand("t", SCHEMA));
            LateReplication group = new LateReplication(store);
            store.replicateThrough(group);
            PreparedTransactions p = e.writes().prepared();
            List<Transactions.WriteAction> part = List.of(put(t, "a", "1"));

            group.holdBackNext();
            assertThatThrownBy(() -> p.prepare("unsure", true, BODY, part))
                    .isInstanceOf(io.partita.storage.StorageUnavailableException.class);
            assertThatThrownBy(() -> write(e, t, "a", "x")).isInstanceOf(ApiException.class); // still held
            assertThat(p.prepared()).extracting(PreparedTransactions.Part::id).containsExactly("unsure");
            assertThat(p.abort("unsure", true, 0)).isEqualTo(Decision.ABORTED); // settles it first: applied, deleted
            assertThat(group.holding()).isFalse();
            assertThat(p.prepared()).isEmpty();
            write(e, t, "a", "0");

            assertThat(p.prepare("tx", false, BODY, part).reasons()).isNull();
            group.holdBackNext();
            assertThatThrownBy(() -> p.commit("tx", false, 0, (body, ids) -> part))
                    .isInstanceOf(io.partita.storage.StorageUnavailableException.class);
            // Sent again: the first commit applies as the second settles, which then finds the part ended.
            assertThat(p.commit("tx", false, 0, (body, ids) -> part))
                    .isEqualTo(new PreparedTransactions.Finished(Decision.COMMITTED, null));
            assertThat(e.get(t, key("a"))).isEqualTo(item("a", "1"));
            write(e, t, "a", "2"); // released
            store.replicateThrough(null);
        }
    }

    /** A table deleted and made again under its name since a part was prepared holds none of the part's items. */
    @Test
    void aTableMadeAgainSinceThePrepareHasNoneOfThePartsItems() {
        try (RocksStore store = RocksStore.open(StorageConfig.memory())) {
            try (StorageEngine first = StorageEngine.openOn(store, StorageConfig.memory())) {
                Table t = first.tables().create(TestTables.onDemand("t", SCHEMA));
                assertThat(first.writes()
                                .prepared()
                                .prepare("tx", false, BODY, List.of(put(t, "a", "1")))
                                .reasons())
                        .isNull();
                first.tables().delete("t");
                first.tables().create(TestTables.onDemand("t", SCHEMA));
            }
            try (StorageEngine next = StorageEngine.openOn(store, StorageConfig.memory())) {
                Table t = next.tables().find("t");
                write(next, t, "a", "new"); // not held
                var ids = new java.util.concurrent.atomic.AtomicReference<Map<String, String>>();
                next.writes().prepared().commit("tx", false, 0, (body, tableIds) -> {
                    ids.set(tableIds);
                    return List.of();
                });
                assertThat(ids.get().get("t")).isNotEqualTo(t.metadata().id());
                assertThat(next.get(t, key("a"))).isEqualTo(item("a", "new"));
            }
        }
    }

    /** A new leader's engine on the same store claims the items of the parts recorded there, and commits them. */
    @Test
    void aNewEngineOnTheStoreHoldsThePreparedItemsAndCommitsThem() {
        try (RocksStore store = RocksStore.open(StorageConfig.memory())) {
            List<Transactions.WriteAction> part;
            try (StorageEngine first = StorageEngine.openOn(store, StorageConfig.memory())) {
                Table t = first.tables().create(TestTables.onDemand("t", SCHEMA));
                part = List.of(put(t, "a", "1"));
                assertThat(first.writes()
                                .prepared()
                                .prepare("tx", false, BODY, part)
                                .reasons())
                        .isNull();
            }
            try (StorageEngine next = StorageEngine.openOn(store, StorageConfig.memory())) {
                Table t = next.tables().find("t");
                assertThatThrownBy(() -> write(next, t, "a", "x"))
                        .isInstanceOfSatisfying(
                                ApiException.class,
                                x -> assertThat(x.code()).isEqualTo(ErrorCode.TRANSACTION_CONFLICT));
                PreparedTransactions p = next.writes().prepared();
                assertThat(p.prepared())
                        .extracting(PreparedTransactions.Part::body)
                        .containsExactly(BODY);
                assertThat(p.commit("tx", false, 0, (body, ids) -> {
                                    assertThat(body).isEqualTo(BODY);
                                    assertThat(ids).containsOnlyKeys("t");
                                    return List.of(put(t, "a", "1"));
                                })
                                .result()
                                .written())
                        .hasSize(1);
                assertThat(next.get(t, key("a"))).isEqualTo(item("a", "1"));
                write(next, t, "a", "2");
                assertThat(p.prepared()).isEmpty();
            }
        }
    }
}
