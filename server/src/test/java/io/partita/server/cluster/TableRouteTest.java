package io.partita.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.partita.server.cluster.TableRoute.Kind;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which tables each operation's request names, as a cluster with a group per table routes it. */
class TableRouteTest {
    private static TableRoute route(String operation, String body) throws IOException {
        String prefix = List.of("DescribeStream", "GetShardIterator", "GetRecords", "ListStreams")
                        .contains(operation)
                ? "DynamoDBStreams_20120810."
                : "DynamoDB_20120810.";
        return TableRoute.of(prefix + operation, new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void anOperationOnOneTableNamesItByNameOrArnWhereverTheFieldIs() throws IOException {
        String arn = "arn:aws:dynamodb:us-east-1:111122223333:table/orders";
        // The field after others, which are skipped whole (nested objects and arrays included).
        assertThat(route(
                        "PutItem",
                        "{\"Item\":{\"TableName\":{\"S\":\"x\"},\"l\":{\"L\":[{\"S\":\"y\"}]}},"
                                + "\"TableName\":\"orders\"}"))
                .isEqualTo(new TableRoute(Kind.TABLES, List.of("orders")));
        assertThat(route("Query", "{\"TableName\":\"" + arn + "\"}").tables()).containsExactly("orders");
        // An attribute name of DynamoDB's longest, 65,535 bytes, before the table's name.
        assertThat(route(
                                "PutItem",
                                "{\"Item\":{\"" + "n".repeat(65_535) + "\":{\"S\":\"v\"}},\"TableName\":\"orders\"}")
                        .tables())
                .containsExactly("orders");
        assertThat(route("DescribeTable", "{\"TableName\":\"orders\"}").tables())
                .containsExactly("orders");
        assertThat(route("TagResource", "{\"ResourceArn\":\"" + arn + "\",\"Tags\":[]}")
                        .tables())
                .containsExactly("orders");
        assertThat(route("DescribeBackup", "{\"BackupArn\":\"" + arn + "/backup/01489602797149-73d8d5bc\"}")
                        .tables())
                .containsExactly("orders");
        assertThat(route("DescribeExport", "{\"ExportArn\":\"" + arn + "/export/01234\"}")
                        .tables())
                .containsExactly("orders");
        assertThat(route("DescribeStream", "{\"StreamArn\":\"" + arn + "/stream/2026-12-05T19:01:24.518\"}")
                        .tables())
                .containsExactly("orders");
        assertThat(route("ListStreams", "{\"TableName\":\"orders\"}").tables()).containsExactly("orders");
        assertThat(route("ExportTableToPointInTime", "{\"TableArn\":\"" + arn + "\",\"S3Bucket\":\"b\"}")
                        .tables())
                .containsExactly("orders");
    }

    @Test
    void aShardIteratorNamesItsTableAndOneNotIssuedByPartitaNone() throws IOException {
        String issued = java.util.Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString("1|orders|2026-12-05T19:01:24.518|0|5|1765000000000".getBytes(StandardCharsets.UTF_8));
        assertThat(route("GetRecords", "{\"ShardIterator\":\"" + issued + "\"}").tables())
                .containsExactly("orders");
        assertThat(route("GetRecords", "{\"ShardIterator\":\"not-one\"}")).isEqualTo(TableRoute.NONE);
    }

    @Test
    void batchesAndTransactionsNameEachOfTheirTablesOnce() throws IOException {
        assertThat(route(
                                "BatchWriteItem",
                                "{\"RequestItems\":{\"a\":[{\"PutRequest\":{\"Item\":{}}}],\"b\":[],"
                                        + "\"arn:aws:dynamodb:us-east-1:111122223333:table/c\":[]}}")
                        .tables())
                .containsExactly("a", "b", "c");
        // A share of a batch over several groups that its group only checks: routed as the batch is.
        assertThat(TableRoute.of(
                                BatchSpread.CHECK,
                                new java.io.ByteArrayInputStream(
                                        "{\"RequestItems\":{\"b\":[]}}".getBytes(StandardCharsets.UTF_8)))
                        .tables())
                .containsExactly("b");
        assertThat(route(
                                "TransactWriteItems",
                                "{\"ClientRequestToken\":\"t\",\"TransactItems\":[{\"Put\":{\"TableName\":\"a\","
                                        + "\"Item\":{\"TableName\":{\"S\":\"z\"}}}},{\"ConditionCheck\":{\"Key\":{},"
                                        + "\"TableName\":\"b\"}},{\"Delete\":{\"TableName\":\"a\"}}]}")
                        .tables())
                .containsExactly("a", "b");
        assertThat(route("TransactGetItems", "{\"TransactItems\":[{\"Get\":{\"TableName\":\"a\"}}]}")
                        .tables())
                .containsExactly("a");
    }

    @Test
    void partiqlNamesTheTableOfEachStatement() throws IOException {
        assertThat(route("ExecuteStatement", "{\"Statement\":\"SELECT * FROM \\\"orders\\\".\\\"byDate\\\"\"}")
                        .tables())
                .containsExactly("orders");
        assertThat(route(
                                "BatchExecuteStatement",
                                "{\"Statements\":[{\"Statement\":\"INSERT INTO a VALUE {'pk': 1}\"},"
                                        + "{\"Statement\":\"UPDATE b SET x = 1 WHERE pk = 2\"}]}")
                        .tables())
                .containsExactly("a", "b");
        assertThat(route(
                                "ExecuteTransaction",
                                "{\"TransactStatements\":[{\"Statement\":\"DELETE FROM a WHERE pk=1\"}]}")
                        .tables())
                .containsExactly("a");
        assertThat(route("ExecuteStatement", "{\"Statement\":\"SELECT * FROM\"}"))
                .isEqualTo(TableRoute.NONE);
    }

    @Test
    void tablesMadeRestoredOrListedAcrossTheAccountAreToldApart() throws IOException {
        assertThat(route("CreateTable", "{\"KeySchema\":[],\"TableName\":\"orders\"}"))
                .isEqualTo(new TableRoute(Kind.CREATES, List.of("orders")));
        assertThat(route("ImportTable", "{\"TableCreationParameters\":{\"KeySchema\":[],\"TableName\":\"orders\"}}"))
                .isEqualTo(new TableRoute(Kind.CREATES, List.of("orders")));
        assertThat(route("RestoreTableToPointInTime", "{\"SourceTableName\":\"a\",\"TargetTableName\":\"b\"}"))
                .isEqualTo(new TableRoute(Kind.RESTORES, List.of("a")));
        assertThat(route(
                        "RestoreTableFromBackup",
                        "{\"BackupArn\":\"arn:aws:dynamodb:us-east-1:111122223333:table/a/backup/1\","
                                + "\"TargetTableName\":\"b\"}"))
                .isEqualTo(new TableRoute(Kind.RESTORES, List.of("a")));
        assertThat(route("ListBackups", "{}").kind()).isEqualTo(Kind.ACCOUNT_WIDE);
        // A table's backups may be in groups that are not its own: its name filters the account's whole list.
        assertThat(route("ListBackups", "{\"TableName\":\"a\"}").kind()).isEqualTo(Kind.ACCOUNT_WIDE);
        assertThat(route("ListStreams", "{}").kind()).isEqualTo(Kind.ACCOUNT_WIDE);
        assertThat(route("ListExports", "{\"TableArn\":\"arn:aws:dynamodb:us-east-1:111122223333:table/a\"}"))
                .isEqualTo(new TableRoute(Kind.TABLES, List.of("a")));
    }

    @Test
    void aRequestNamingNoTableOrNotJsonNamesNone() throws IOException {
        assertThat(route("ListTables", "{\"Limit\":3}")).isEqualTo(TableRoute.NONE);
        assertThat(route("DescribeLimits", "{}")).isEqualTo(TableRoute.NONE);
        assertThat(route("PutItem", "not json")).isEqualTo(TableRoute.NONE);
        assertThat(route("PutItem", "{\"TableName\":7}")).isEqualTo(TableRoute.NONE);
        assertThat(route("PutItem", "[\"TableName\"]")).isEqualTo(TableRoute.NONE);
        assertThat(TableRoute.of(null, new ByteArrayInputStream(new byte[0]))).isEqualTo(TableRoute.NONE);
        assertThat(TableRoute.of("Other.PutItem", new ByteArrayInputStream("{}".getBytes(StandardCharsets.UTF_8))))
                .isEqualTo(TableRoute.NONE);
        assertThat(TableRoute.tableOfArn("arn:aws:dynamodb:us-east-1:111122223333:global-table/x"))
                .isNull();
    }
}
