package io.partita.conformance;

import static io.partita.conformance.support.AttributeValues.item;
import static io.partita.conformance.support.AttributeValues.n;
import static io.partita.conformance.support.AttributeValues.s;
import static org.assertj.core.api.Assertions.assertThat;

import io.partita.conformance.support.ApiErrors;
import io.partita.conformance.support.Endpoint;
import io.partita.conformance.support.PartitaExtension;
import io.partita.conformance.support.Tables;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.BatchStatementErrorCodeEnum;
import software.amazon.awssdk.services.dynamodb.model.BatchStatementRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchStatementResponse;
import software.amazon.awssdk.services.dynamodb.model.ParameterizedStatement;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;

/**
 * BatchExecuteStatement (ql-reference.multiplestatements.batching) and ExecuteTransaction
 * (ql-reference.multiplestatements.transactions): per-statement errors in a batch, all-or-nothing transactions with
 * TransactWriteItems' rules, reads by whole key only.
 */
@ExtendWith(PartitaExtension.class)
class PartiqlBatchAndTransactionTest {
    private final DynamoDbClient ddb = Endpoint.client();

    private static BatchStatementRequest batch(String statement) {
        return BatchStatementRequest.builder().statement(statement).build();
    }

    private static ParameterizedStatement tx(String statement) {
        return ParameterizedStatement.builder().statement(statement).build();
    }

    private Map<String, software.amazon.awssdk.services.dynamodb.model.AttributeValue> get(String t, String id) {
        return ddb.getItem(g -> g.tableName(t).key(Map.of("id", s(id))).consistentRead(true))
                .item();
    }

    @Test
    void aBatchRunsEachStatementOnItsOwn(Tables tables) {
        String t = tables.hashTable("id", ScalarAttributeType.S);
        var writes = ddb.batchExecuteStatement(b -> b.statements(
                        batch("INSERT INTO \"" + t + "\" VALUE {'id': 'a', 'n': 1}"),
                        batch("INSERT INTO \"" + t + "\" VALUE {'id': 'b', 'n': 2}"),
                        batch("INSERT INTO \"" + t + "\" VALUE {'id': 'a', 'n': 3}"),
                        batch("UPDATE \"" + t + "\" SET n = 9 WHERE id = 'missing'"))
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL));
        List<BatchStatementResponse> r = writes.responses();
        assertThat(r.get(0).error()).isNull();
        assertThat(r.get(0).tableName()).isEqualTo(t);
        assertThat(r.get(1).error()).isNull();
        assertThat(r.get(2).error().code()).isEqualTo(BatchStatementErrorCodeEnum.DUPLICATE_ITEM);
        assertThat(r.get(2).error().message()).isEqualTo("Duplicate primary key exists in table");
        assertThat(r.get(3).error().code()).isEqualTo(BatchStatementErrorCodeEnum.CONDITIONAL_CHECK_FAILED);
        assertThat(get(t, "a")).containsEntry("n", n("1"));

        var reads = ddb.batchExecuteStatement(b -> b.statements(
                batch("SELECT * FROM \"" + t + "\" WHERE id = 'b'"),
                batch("SELECT * FROM \"" + t + "\" WHERE id = 'nobody'"),
                batch("SELECT * FROM \"" + t + "\" WHERE n = 1"),
                batch("SELECT * FROM \"" + t + "\" WHERE")));
        assertThat(reads.responses().get(0).item()).isEqualTo(item("id", s("b"), "n", n("2")));
        assertThat(reads.responses().get(1).hasItem()).isFalse();
        assertThat(reads.responses().get(1).error()).isNull();
        assertThat(reads.responses().get(2).error().code()).isEqualTo(BatchStatementErrorCodeEnum.VALIDATION_ERROR);
        assertThat(reads.responses().get(2).error().message())
                .isEqualTo("Select statements within BatchExecuteStatement must specify the primary key in the where"
                        + " clause.");
        assertThat(reads.responses().get(3).error().message())
                .isEqualTo("Statement wasn't well formed, can't be processed: Unexpected term");
    }

    @Test
    void aTransactionIsAllOrNothing(Tables tables) {
        String t = tables.hashTable("id", ScalarAttributeType.S);
        ddb.executeStatement(r -> r.statement("INSERT INTO \"" + t + "\" VALUE {'id': 'a', 'bal': 10}"));
        ddb.executeStatement(r -> r.statement("INSERT INTO \"" + t + "\" VALUE {'id': 'c', 'bal': 0}"));
        var out = ddb.executeTransaction(r -> r.transactStatements(
                        tx("UPDATE \"" + t + "\" SET bal = bal - 5 WHERE id = 'a' AND bal >= 5"),
                        tx("INSERT INTO \"" + t + "\" VALUE {'id': 'b', 'bal': 5}"),
                        tx("EXISTS(SELECT * FROM \"" + t + "\" WHERE id = 'c' AND attribute_exists(bal))"))
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL));
        assertThat(out.responses()).isEmpty();
        assertThat(out.consumedCapacity().get(0).writeCapacityUnits()).isEqualTo(6.0);
        assertThat(get(t, "a")).containsEntry("bal", n("5"));
        assertThat(get(t, "b")).containsEntry("bal", n("5"));

        TransactionCanceledException e = ApiErrors.assertError(
                TransactionCanceledException.class,
                "TransactionCanceledException",
                "Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed,"
                        + " DuplicateItem]",
                () -> ddb.executeTransaction(r -> r.transactStatements(
                        tx("UPDATE \"" + t + "\" SET bal = bal - 50 WHERE id = 'a' AND bal >= 50"),
                        tx("INSERT INTO \"" + t + "\" VALUE {'id': 'b', 'bal': 50}"))));
        assertThat(e.cancellationReasons().get(1).message()).isEqualTo("Duplicate primary key exists in table");
        assertThat(get(t, "a")).containsEntry("bal", n("5"));

        var read = ddb.executeTransaction(r -> r.transactStatements(
                tx("SELECT bal FROM \"" + t + "\" WHERE id = 'a'"), tx("SELECT * FROM \"" + t + "\" WHERE id = 'zz'")));
        assertThat(read.responses().get(0).item()).isEqualTo(Map.of("bal", n("5")));
        assertThat(read.responses().get(1).hasItem()).isFalse();
    }

    /** The 4 MB a transaction's items may take counts every table's statements together. */
    @Test
    void aTransactionsWritesAreLimitedToFourMegabytesOverAllItsTables(Tables tables) {
        String t = tables.hashTable("id", ScalarAttributeType.S);
        String u = tables.hashTable("id", ScalarAttributeType.S);
        software.amazon.awssdk.services.dynamodb.model.AttributeValue big = s("x".repeat(390_000));
        List<ParameterizedStatement> inserts = new java.util.ArrayList<>();
        for (int i = 0; i < 11; i++) {
            inserts.add(ParameterizedStatement.builder()
                    .statement("INSERT INTO \"" + (i % 2 == 0 ? t : u) + "\" VALUE {'id': 'big" + i + "', 'v': ?}")
                    .parameters(big)
                    .build());
        }
        var e = org.assertj.core.api.Assertions.catchThrowableOfType(
                software.amazon.awssdk.services.dynamodb.model.DynamoDbException.class,
                () -> ddb.executeTransaction(r -> r.transactStatements(inserts)));
        assertThat(e).as("refused").isNotNull();
        assertThat(e.statusCode()).isEqualTo(400);
        assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ValidationException");
        assertThat(e.awsErrorDetails().errorMessage()).startsWith("Transaction payload size cannot exceed 4MB.");
        assertThat(get(t, "big0")).isEmpty();
        assertThat(get(u, "big1")).isEmpty();
        // Ten of them fit.
        ddb.executeTransaction(r -> r.transactStatements(inserts.subList(0, 10)));
        assertThat(get(u, "big9")).containsKey("v");
    }

    @Test
    void transactionRules(Tables tables) {
        String t = tables.hashTable("id", ScalarAttributeType.S);
        ApiErrors.assertValidation(
                "ExecuteTransaction API does not support both read and write operations in the same request.",
                () -> ddb.executeTransaction(r -> r.transactStatements(
                        tx("SELECT * FROM \"" + t + "\" WHERE id = 'a'"),
                        tx("INSERT INTO \"" + t + "\" VALUE {'id': 'b'}"))));
        ApiErrors.assertValidation(
                "Validation failed in TransactStatements[0]: Select statements within ExecuteTransaction must specify"
                        + " the primary key in the where clause.",
                () -> ddb.executeTransaction(r -> r.transactStatements(tx("SELECT * FROM \"" + t + "\""))));
        ApiErrors.assertValidation(
                "Validation failed in TransactStatements[1]: Statement wasn't well formed, can't be processed:"
                        + " Unexpected term",
                () -> ddb.executeTransaction(r -> r.transactStatements(
                        tx("INSERT INTO \"" + t + "\" VALUE {'id': 'b'}"), tx("DELETE FROM \"" + t + "\" WHERE"))));
        ApiErrors.assertValidation(
                "Validation failed in TransactStatements[0]: EXISTS() must contain a single item read with additional"
                        + " condition",
                () -> ddb.executeTransaction(
                        r -> r.transactStatements(tx("EXISTS(SELECT * FROM \"" + t + "\" WHERE id = 'a')"))));
        ApiErrors.assertValidation(
                "Transaction request cannot include multiple operations on one item",
                () -> ddb.executeTransaction(r -> r.transactStatements(
                        tx("INSERT INTO \"" + t + "\" VALUE {'id': 'b'}"),
                        tx("DELETE FROM \"" + t + "\" WHERE id = 'b'"))));
        assertThat(get(t, "b")).isEmpty();
        // EXISTS needs the item: a condition that holds on no item does not make it exist.
        TransactionCanceledException missing = ApiErrors.assertError(
                TransactionCanceledException.class,
                "TransactionCanceledException",
                "Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed,"
                        + " None]",
                () -> ddb.executeTransaction(r -> r.transactStatements(
                        tx("EXISTS(SELECT * FROM \"" + t + "\" WHERE id = 'ghost' AND attribute_not_exists(x))"),
                        tx("INSERT INTO \"" + t + "\" VALUE {'id': 'b'}"))));
        assertThat(missing.cancellationReasons()).hasSize(2);
        assertThat(get(t, "b")).isEmpty();
    }

    /** At most 25 statements in a batch and 100 in a transaction, refused as DynamoDB's length constraint. */
    @Test
    void statementCountLimits(Tables tables) {
        String t = tables.hashTable("id", ScalarAttributeType.S);
        List<BatchStatementRequest> batch = new java.util.ArrayList<>();
        for (int i = 0; i < 26; i++) {
            batch.add(BatchStatementRequest.builder()
                    .statement("INSERT INTO \"" + t + "\" VALUE {'id': 'b" + i + "'}")
                    .build());
        }
        var tooMany = org.assertj.core.api.Assertions.catchThrowableOfType(
                software.amazon.awssdk.services.dynamodb.model.DynamoDbException.class,
                () -> ddb.batchExecuteStatement(r -> r.statements(batch)));
        assertThat(tooMany.awsErrorDetails().errorCode()).isEqualTo("ValidationException");
        assertThat(tooMany.awsErrorDetails().errorMessage())
                .startsWith("1 validation error detected: Value ")
                .endsWith(" at 'statements' failed to satisfy constraint: Member must have length less than or equal"
                        + " to 25");
        List<ParameterizedStatement> transaction = new java.util.ArrayList<>();
        for (int i = 0; i < 101; i++) {
            transaction.add(tx("INSERT INTO \"" + t + "\" VALUE {'id': 't" + i + "'}"));
        }
        var tooLong = org.assertj.core.api.Assertions.catchThrowableOfType(
                software.amazon.awssdk.services.dynamodb.model.DynamoDbException.class,
                () -> ddb.executeTransaction(r -> r.transactStatements(transaction)));
        assertThat(tooLong.awsErrorDetails().errorCode()).isEqualTo("ValidationException");
        assertThat(tooLong.awsErrorDetails().errorMessage())
                .startsWith("1 validation error detected: Value ")
                .endsWith(" at 'transactStatements' failed to satisfy constraint: Member must have length less than or"
                        + " equal to 100");
        // Nothing was written; the largest of each is accepted.
        assertThat(get(t, "b0")).isEmpty();
        assertThat(get(t, "t0")).isEmpty();
        ddb.batchExecuteStatement(r -> r.statements(batch.subList(0, 25)));
        ddb.executeTransaction(r -> r.transactStatements(transaction.subList(0, 100)));
        assertThat(get(t, "b24")).isNotEmpty();
        assertThat(get(t, "t99")).isNotEmpty();
    }

    @Test
    void aTransactionTokenIsIdempotent(Tables tables) {
        String t = tables.hashTable("id", ScalarAttributeType.S);
        ddb.executeStatement(r -> r.statement("INSERT INTO \"" + t + "\" VALUE {'id': 'c', 'n': 0}"));
        String token = UUID.randomUUID().toString();
        for (int i = 0; i < 2; i++) {
            ddb.executeTransaction(r -> r.transactStatements(tx("UPDATE \"" + t + "\" SET n = n + 1 WHERE id = 'c'"))
                    .clientRequestToken(token));
        }
        assertThat(get(t, "c")).containsEntry("n", n("1"));
        ApiErrors.assertError(
                software.amazon.awssdk.services.dynamodb.model.IdempotentParameterMismatchException.class,
                "IdempotentParameterMismatchException",
                "DynamoDB rejected the request because you retried a request with a different payload but with an"
                        + " idempotent token that was already used.",
                () -> ddb.executeTransaction(
                        r -> r.transactStatements(tx("UPDATE \"" + t + "\" SET n = n + 2 WHERE id = 'c'"))
                                .clientRequestToken(token)));
        assertThat(get(t, "c")).containsEntry("n", n("1"));
    }
}
