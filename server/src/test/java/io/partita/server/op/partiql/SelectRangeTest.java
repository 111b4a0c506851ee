package io.partita.server.op.partiql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.expr.ExpressionCache;
import io.partita.protocol.message.ExecuteStatementInput;
import io.partita.protocol.message.ExecuteStatementOutput;
import io.partita.protocol.model.AttributeValue;
import io.partita.server.op.KeyedTables;
import io.partita.server.op.item.ItemExpressions;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.OperationRegistry;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageConfig;
import io.partita.storage.StorageEngine;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Partita's own {@code Partita.SelectRange}, a group's page of a PartiQL SELECT that a cluster walks over a table's
 * groups (docs/CLUSTER.md): the statement's Scan of the group's items, whose answer, when it reaches their end, names
 * the last item scanned and the token that goes on after it.
 */
class SelectRangeTest {
    private static final String RANGE = OperationRegistry.PARTITA_PREFIX + "SelectRange";
    private static final String STATEMENT = OperationRegistry.DYNAMODB_PREFIX + "ExecuteStatement";

    @Test
    void aPageNamesItsLastScannedItemAtTheEndAndStopsShortWithATokenOtherwise() {
        try (StorageEngine storage = StorageEngine.open(StorageConfig.memory())) {
            storage.tables().create(KeyedTables.byId("t"));
            OperationRegistry registry = new OperationRegistry();
            ExpressionCache cache = new ExpressionCache(100);
            PartiqlOperations.register(registry, storage, new ItemExpressions(cache), cache, new PartiqlScans());
            for (int i = 0; i < 30; i++) {
                run(registry, STATEMENT, "INSERT INTO \"t\" VALUE {'id': 'k" + i + "', 'n': " + i + "}", null, null);
            }

            // To the end: every item, the last one scanned named with its token, no NextToken.
            ExecuteStatementOutput whole = run(registry, RANGE, "SELECT * FROM \"t\"", null, null);
            assertThat(whole.items()).hasSize(30);
            assertThat(whole.nextToken()).isNull();
            assertThat(whole.lastEvaluatedKey()).isNull();
            Map<String, AttributeValue> last =
                    Map.of("id", whole.items().get(29).get("id"));
            assertThat(whole.partitaLastScannedKey()).isEqualTo(last);
            assertThat(ExecuteStatementHandler.nextTokenKey(whole.partitaLastScannedToken()))
                    .isEqualTo(last);
            assertThat(whole.partitaScannedCount()).isEqualTo(30L);
            assertThat(whole.partitaScannedBytes()).isPositive();

            // A filter: the Limit and the count are of the items read, not those that match.
            ExecuteStatementOutput filtered = run(registry, RANGE, "SELECT id FROM \"t\" WHERE n >= 25", null, null);
            assertThat(filtered.items()).hasSize(5);
            assertThat(filtered.partitaScannedCount()).isEqualTo(30L);
            assertThat(filtered.partitaLastScannedKey()).isEqualTo(last);

            // Pages of a Limit: each stops short with its NextToken and LastEvaluatedKey, and the next goes on there.
            List<Map<String, AttributeValue>> paged = new ArrayList<>();
            String token = null;
            int pages = 0;
            do {
                ExecuteStatementOutput page = run(registry, RANGE, "SELECT * FROM \"t\"", 7L, token);
                paged.addAll(page.items());
                token = page.nextToken();
                if (token != null) {
                    assertThat(page.items()).hasSize(7);
                    assertThat(page.partitaLastScannedKey()).isNull();
                    assertThat(ExecuteStatementHandler.nextTokenKey(token)).isEqualTo(page.lastEvaluatedKey());
                }
                pages++;
            } while (token != null);
            assertThat(paged).containsExactlyElementsOf(whole.items());
            assertThat(pages).isEqualTo(5);

            // The bytes a page may read: at least one item.
            ExecuteStatementOutput small = run(registry, RANGE, "SELECT * FROM \"t\"", null, null, 1L);
            assertThat(small.items()).hasSize(1);
            assertThat(small.nextToken()).isNotNull();

            // A token of this group's page goes on in ExecuteStatement as well: it is the statement's.
            ExecuteStatementOutput rest = run(registry, STATEMENT, "SELECT * FROM \"t\"", null, small.nextToken());
            assertThat(rest.items()).containsExactlyElementsOf(whole.items().subList(1, 30));
            assertThat(rest.partitaLastScannedKey()).isNull();
            assertThat(rest.partitaScannedCount()).isNull();

            // Several partition key values: the page's first share answers their hashes, in the order of their
            // Queries, and reads nothing; each value's share reads that value alone and names the next value's token,
            // which ExecuteStatement takes too.
            String in = "SELECT * FROM \"t\" WHERE id IN ['k3', 'k1', 'k7']";
            ExecuteStatementOutput plan = run(registry, RANGE, in, null, null, null, null, "TOTAL");
            assertThat(plan.items()).isEmpty();
            assertThat(plan.consumedCapacity()).as("nothing read").isNull();
            assertThat(plan.partitaValueHashes()).containsExactly(hash("k3"), hash("k1"), hash("k7"));
            List<String> values = new ArrayList<>();
            for (int v = 0; v < 3; v++) {
                ExecuteStatementOutput share = run(registry, RANGE, in, null, null, null, v);
                assertThat(share.items()).hasSize(1);
                values.add(((AttributeValue.S) share.items().get(0).get("id")).value());
                assertThat(share.partitaScannedCount()).isEqualTo(1L);
                assertThat(share.nextToken()).isNull();
                if (v < 2) {
                    assertThat(run(registry, STATEMENT, in, null, share.partitaLastScannedToken())
                                    .items())
                            .as("what follows value %d", v)
                            .hasSize(2 - v);
                } else {
                    assertThat(share.partitaLastScannedToken()).isNull();
                }
            }
            assertThat(values).containsExactly("k3", "k1", "k7");
            assertThatThrownBy(() -> run(registry, RANGE, in, null, null, null, 3))
                    .isInstanceOf(ApiException.class)
                    .hasMessageContaining("no value 3");
            // A value of no key's type hashes into the first range, whose Query refuses it as a single node does.
            String odd = "SELECT * FROM \"t\" WHERE id IN ['k1', true]";
            assertThat(run(registry, RANGE, odd, null, null, null, null).partitaValueHashes())
                    .containsExactly(hash("k1"), 0L);
            assertThat(run(registry, RANGE, odd, null, null, null, 0).items()).hasSize(1);
            String refusal = org.assertj.core.api.Assertions.catchThrowable(
                            () -> run(registry, STATEMENT, odd, null, null))
                    .getMessage();
            assertThatThrownBy(() -> run(registry, RANGE, odd, null, null, null, 1))
                    .isInstanceOf(ApiException.class)
                    .hasMessage(refusal);
            // A SELECT of one key is no walk's: it goes to its key's group.
            assertThatThrownBy(() -> run(registry, RANGE, "SELECT * FROM \"t\" WHERE id = 'k1'", null, null))
                    .isInstanceOf(ApiException.class)
                    .hasMessageContaining("runs a SELECT that binds one partition key value on table t in that");
            assertThatThrownBy(() -> run(registry, RANGE, "SELECT * FROM \"t\"", null, "not a token"))
                    .isInstanceOf(ApiException.class)
                    .hasMessage("Invalid NextToken");
            assertThatThrownBy(() -> run(registry, RANGE, "SELECT id FROM \"t\"", null, small.nextToken()))
                    .isInstanceOf(ApiException.class)
                    .hasMessage("NextToken does not match request");
        }
    }

    private static ExecuteStatementOutput run(
            OperationRegistry registry, String target, String statement, Long limit, String nextToken) {
        return run(registry, target, statement, limit, nextToken, null, null);
    }

    private static ExecuteStatementOutput run(
            OperationRegistry registry, String target, String statement, Long limit, String nextToken, Long pageBytes) {
        return run(registry, target, statement, limit, nextToken, pageBytes, null);
    }

    private static ExecuteStatementOutput run(
            OperationRegistry registry,
            String target,
            String statement,
            Long limit,
            String nextToken,
            Long pageBytes,
            Integer value) {
        return run(registry, target, statement, limit, nextToken, pageBytes, value, null);
    }

    private static long hash(String id) {
        return io.partita.storage.key.ItemKeyEncoder.partitionHash(new AttributeValue.S(id));
    }

    @SuppressWarnings("unchecked")
    private static ExecuteStatementOutput run(
            OperationRegistry registry,
            String target,
            String statement,
            Long limit,
            String nextToken,
            Long pageBytes,
            Integer value,
            String consumed) {
        OperationHandler<ExecuteStatementInput, ExecuteStatementOutput> handler =
                (OperationHandler<ExecuteStatementInput, ExecuteStatementOutput>) registry.find(target);
        RequestContext context =
                new RequestContext("r", "us-east-1", "000000000000", "localhost", Clock.systemUTC(), target, false);
        return handler.handle(
                context,
                new ExecuteStatementInput(
                        statement, null, null, nextToken, consumed, limit, null, pageBytes, null, value, null, null));
    }
}
