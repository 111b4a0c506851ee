package io.partita.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.partita.protocol.json.DynamoJson;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ListSpreadTest {
    private static JsonNode json(String json) throws Exception {
        return DynamoJson.mapper().readTree(json.replace('\'', '"'));
    }

    private static ObjectNode request(String json) throws Exception {
        return (ObjectNode) json(json);
    }

    private static JsonNode stream(String table, String label) throws Exception {
        return json("{'StreamArn':'arn:aws:dynamodb:us-east-1:000000000000:table/" + table + "/stream/" + label
                + "','TableName':'" + table + "','StreamLabel':'" + label + "'}");
    }

    private static JsonNode backup(String table, long created) throws Exception {
        return json("{'TableName':'" + table + "','BackupArn':'arn:aws:dynamodb:us-east-1:000000000000:table/" + table
                + "/backup/" + String.format("%014d-%08x", created, created) + "'}");
    }

    private static List<String> field(byte[] page, String list, String field) throws Exception {
        List<String> out = new ArrayList<>();
        DynamoJson.mapper()
                .readTree(page)
                .get(list)
                .forEach(e -> out.add(e.get(field).asText()));
        return out;
    }

    private static String last(byte[] page, String field) throws Exception {
        JsonNode v = DynamoJson.mapper().readTree(page).get(field);
        return v == null ? null : v.asText();
    }

    @Test
    void streamsAreOrderedByTableAndPagedByTheirArnWhicheverGroupHasThem() throws Exception {
        // The account's group has tables b and d, one group has a (two streams), another c.
        List<List<JsonNode>> groups = List.of(
                List.of(stream("b", "1"), stream("d", "1")),
                List.of(stream("a", "1"), stream("a", "2")),
                List.of(stream("c", "1")));
        ListSpread.Kind kind = ListSpread.Kind.STREAMS;
        byte[] first = ListSpread.page(kind, request("{'Limit':3}"), groups);
        assertThat(field(first, "Streams", "TableName")).containsExactly("a", "a", "b");
        assertThat(field(first, "Streams", "StreamLabel")).containsExactly("1", "2", "1");
        String cursor = last(first, "LastEvaluatedStreamArn");
        assertThat(cursor).endsWith("table/b/stream/1");
        byte[] second =
                ListSpread.page(kind, request("{'Limit':3,'ExclusiveStartStreamArn':'" + cursor + "'}"), groups);
        assertThat(field(second, "Streams", "TableName")).containsExactly("c", "d");
        assertThat(last(second, "LastEvaluatedStreamArn")).isNull();
        // A cursor of no stream listed ends the list, as a single node's does; no Limit is 100.
        assertThat(field(
                        ListSpread.page(kind, request("{'ExclusiveStartStreamArn':'arn:x/stream/9'}"), groups),
                        "Streams",
                        "TableName"))
                .isEmpty();
        assertThat(field(ListSpread.page(kind, request("{}"), groups), "Streams", "TableName"))
                .hasSize(5);
    }

    @Test
    void backupsAreOldestFirstAndResumeAfterTheirCursorDeletedOrNot() throws Exception {
        List<List<JsonNode>> groups = List.of(List.of(backup("a", 10), backup("a", 40)), List.of(backup("b", 20)));
        ListSpread.Kind kind = ListSpread.Kind.BACKUPS;
        byte[] first = ListSpread.page(kind, request("{'Limit':2}"), groups);
        assertThat(field(first, "BackupSummaries", "TableName")).containsExactly("a", "b");
        String cursor = last(first, "LastEvaluatedBackupArn");
        assertThat(cursor).contains("/backup/00000000000020");
        byte[] second =
                ListSpread.page(kind, request("{'Limit':2,'ExclusiveStartBackupArn':'" + cursor + "'}"), groups);
        assertThat(field(second, "BackupSummaries", "TableName")).containsExactly("a");
        assertThat(last(second, "LastEvaluatedBackupArn")).isNull();
        // A full last page names no cursor: nothing follows it.
        assertThat(last(ListSpread.page(kind, request("{'Limit':3}"), groups), "LastEvaluatedBackupArn"))
                .isNull();
        // The cursor of a backup deleted meanwhile (id 15) resumes after its place.
        String deleted = "arn:aws:dynamodb:us-east-1:000000000000:table/a/backup/" + String.format("%014d-0", 15);
        assertThat(field(
                        ListSpread.page(kind, request("{'ExclusiveStartBackupArn':'" + deleted + "'}"), groups),
                        "BackupSummaries",
                        "TableName"))
                .containsExactly("b", "a");
    }

    /** A backup of a table cut by ranges is a part in each of its groups under one ARN: listed once, its size all. */
    @Test
    void aBackupOfSeveralPartsIsListedOnceWithEveryPartsSize() throws Exception {
        ObjectNode part1 = (ObjectNode) backup("cut", 30);
        ObjectNode part2 = (ObjectNode) backup("cut", 30);
        ObjectNode part3 = (ObjectNode) backup("cut", 30);
        part1.put("BackupSizeBytes", 100);
        part2.put("BackupSizeBytes", 20);
        part3.put("BackupSizeBytes", 3);
        List<List<JsonNode>> groups =
                List.of(List.of(backup("a", 10), part1), List.of(part2), List.of(part3, backup("b", 40)));
        byte[] page = ListSpread.page(ListSpread.Kind.BACKUPS, request("{}"), groups);
        assertThat(field(page, "BackupSummaries", "TableName")).containsExactly("a", "cut", "b");
        assertThat(DynamoJson.mapper()
                        .readTree(page)
                        .get("BackupSummaries")
                        .get(1)
                        .get("BackupSizeBytes")
                        .asLong())
                .isEqualTo(123);
        // Paged as one entry: two to a page, the cursor after it.
        byte[] first = ListSpread.page(ListSpread.Kind.BACKUPS, request("{'Limit':2}"), groups);
        assertThat(last(first, "LastEvaluatedBackupArn")).contains("table/cut/backup/00000000000030");
    }

    @Test
    void aGroupIsAskedForItsLargestPagesWithoutTheClientsLimitAndCursor() throws Exception {
        ObjectNode asked = request(
                "{'Limit':1,'ExclusiveStartBackupArn':'arn:x/backup/1','TimeRangeLowerBound':5,'BackupType':'ALL'}");
        JsonNode body = json(new String(
                ListSpread.pageBody(ListSpread.Kind.BACKUPS, asked, "arn:y/backup/2"), StandardCharsets.UTF_8));
        assertThat(body.get("Limit").asInt()).isEqualTo(100);
        assertThat(body.get("ExclusiveStartBackupArn").asText()).isEqualTo("arn:y/backup/2");
        assertThat(body.get("TimeRangeLowerBound").asInt()).isEqualTo(5);
        assertThat(body.get("BackupType").asText()).isEqualTo("ALL");
        assertThat(json(new String(ListSpread.pageBody(ListSpread.Kind.BACKUPS, asked, null), StandardCharsets.UTF_8))
                        .has("ExclusiveStartBackupArn"))
                .isFalse();
        ListSpread.Page page = ListSpread.read(
                ListSpread.Kind.STREAMS,
                "{\"Streams\":[{\"StreamArn\":\"s\"}],\"LastEvaluatedStreamArn\":\"s\"}"
                        .getBytes(StandardCharsets.UTF_8));
        assertThat(page.entries()).hasSize(1);
        assertThat(page.next()).isEqualTo("s");
        assertThat(ListSpread.read(ListSpread.Kind.STREAMS, "{\"__type\":\"x\"}".getBytes(StandardCharsets.UTF_8)))
                .isNull();
        JsonNode exports = json(new String(
                ListSpread.pageBody(ListSpread.Kind.EXPORTS, request("{'MaxResults':2,'NextToken':'abc'}"), "def"),
                StandardCharsets.UTF_8));
        assertThat(exports.get("MaxResults").asInt()).isEqualTo(25);
        assertThat(exports.get("NextToken").asText()).isEqualTo("def");
        JsonNode imports = json(new String(
                ListSpread.pageBody(ListSpread.Kind.IMPORTS, request("{'PageSize':2}"), null), StandardCharsets.UTF_8));
        assertThat(imports.get("PageSize").asInt()).isEqualTo(25);
        assertThat(imports.has("NextToken")).isFalse();
    }

    private static JsonNode export(String table, long asked) throws Exception {
        return json("{'ExportArn':'arn:aws:dynamodb:us-east-1:000000000000:table/" + table + "/export/"
                + String.format("%014d-%08x", asked, asked)
                + "','ExportStatus':'COMPLETED','ExportType':'FULL_EXPORT'}");
    }

    private static JsonNode importOf(String table, long asked) throws Exception {
        return json("{'ImportArn':'arn:aws:dynamodb:us-east-1:000000000000:table/" + table + "/import/"
                + String.format("%014d-%08x", asked, asked) + "','ImportStatus':'COMPLETED','TableArn':'t'}");
    }

    @Test
    void exportsAreNewestFirstAndTheirTokenNamesTheNextPagesFirstWhereverItIs() throws Exception {
        List<List<JsonNode>> groups =
                List.of(List.of(export("a", 10), export("a", 40)), List.of(), List.of(export("b", 20)));
        ListSpread.Kind kind = ListSpread.Kind.EXPORTS;
        byte[] first = ListSpread.page(kind, request("{'MaxResults':2}"), groups);
        assertThat(field(first, "ExportSummaries", "ExportArn"))
                .satisfiesExactly(
                        a -> assertThat(a).contains("table/a/export/00000000000040"),
                        b -> assertThat(b).contains("table/b/export/00000000000020"));
        String token = last(first, "NextToken");
        assertThat(token).doesNotContain("arn:"); // opaque, as a single node's
        byte[] second = ListSpread.page(kind, request("{'MaxResults':2,'NextToken':'" + token + "'}"), groups);
        assertThat(field(second, "ExportSummaries", "ExportArn"))
                .singleElement()
                .asString()
                .contains("table/a/export/00000000000010");
        assertThat(last(second, "NextToken")).isNull();
        // A full last page names no token.
        assertThat(last(ListSpread.page(kind, request("{}"), groups), "NextToken"))
                .isNull();
        // No MaxResults is 10 a page; exports asked in one millisecond are ordered by ARN, whichever group has them.
        List<JsonNode> many = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            many.add(export("t" + (char) ('a' + i), 50));
        }
        byte[] ten = ListSpread.page(kind, request("{}"), List.of(many.subList(0, 6), many.subList(6, 12)));
        assertThat(field(ten, "ExportSummaries", "ExportArn")).hasSize(10);
        assertThat(field(ten, "ExportSummaries", "ExportArn").get(0)).contains("table/tl/");
        assertThat(field(
                        ListSpread.page(kind, request("{}"), List.of(many.subList(6, 12), many.subList(0, 6))),
                        "ExportSummaries",
                        "ExportArn"))
                .isEqualTo(field(ten, "ExportSummaries", "ExportArn"));
        assertThat(last(ten, "NextToken")).isNotNull();
        // A token of no export listed is refused, as a single node refuses it.
        ClusterRouter.Reply refused = ListSpread.answer(kind, request("{'NextToken':'bm90LWFuLWFybg'}"), groups);
        assertThat(refused.status()).isEqualTo(400);
        assertThat(new String(refused.body(), StandardCharsets.UTF_8))
                .contains("ValidationException", "Invalid Request: Provided nextToken is invalid: bm90LWFuLWFybg");
        assertThat(ListSpread.answer(kind, request("{'NextToken':'" + token + "'}"), groups)
                        .status())
                .isEqualTo(200);
    }

    @Test
    void importsAreNewestFirstPagedByPageSize() throws Exception {
        List<List<JsonNode>> groups = List.of(List.of(importOf("a", 5)), List.of(importOf("b", 7), importOf("b", 6)));
        ListSpread.Kind kind = ListSpread.Kind.IMPORTS;
        byte[] first = ListSpread.page(kind, request("{'PageSize':1}"), groups);
        assertThat(field(first, "ImportSummaryList", "ImportArn"))
                .singleElement()
                .asString()
                .contains("table/b/import/00000000000007");
        byte[] rest = ListSpread.page(kind, request("{'NextToken':'" + last(first, "NextToken") + "'}"), groups);
        assertThat(field(rest, "ImportSummaryList", "ImportArn"))
                .satisfiesExactly(
                        b -> assertThat(b).contains("table/b/import/00000000000006"),
                        a -> assertThat(a).contains("table/a/import/00000000000005"));
    }

    @Test
    void contributorInsightsAreByTableNameAndResumeAfterTheLastName() throws Exception {
        List<List<JsonNode>> groups = List.of(
                List.of(json("{'TableName':'d','ContributorInsightsStatus':'DISABLED'}")),
                List.of(json("{'TableName':'a','ContributorInsightsStatus':'ENABLED'}")),
                List.of(json("{'TableName':'c','ContributorInsightsStatus':'DISABLED'}")));
        ListSpread.Kind kind = ListSpread.Kind.INSIGHTS;
        byte[] first = ListSpread.page(kind, request("{'MaxResults':2}"), groups);
        assertThat(field(first, "ContributorInsightsSummaries", "TableName")).containsExactly("a", "c");
        assertThat(last(first, "NextToken")).isEqualTo("c");
        // After a name, whether a table has it still (b was deleted); MaxResults 0 is 100, and so is none.
        byte[] rest = ListSpread.page(kind, request("{'MaxResults':0,'NextToken':'b'}"), groups);
        assertThat(field(rest, "ContributorInsightsSummaries", "TableName")).containsExactly("c", "d");
        assertThat(last(rest, "NextToken")).isNull();
        List<JsonNode> many = new ArrayList<>();
        for (int i = 0; i < 101; i++) {
            many.add(json("{'TableName':'t" + String.format("%03d", i) + "'}"));
        }
        byte[] hundred = ListSpread.page(kind, request("{}"), List.of(many));
        assertThat(field(hundred, "ContributorInsightsSummaries", "TableName")).hasSize(100);
        assertThat(last(hundred, "NextToken")).isEqualTo("t099");
    }

    @Test
    void theAccountsGroupChecksTheRequestButAnExportOrImportTokenWhichOnlyTheWholeListKnows() throws Exception {
        byte[] asked = "{\"MaxResults\":30,\"NextToken\":\"abc\"}".getBytes(StandardCharsets.UTF_8);
        JsonNode checked =
                json(new String(ListSpread.checkBody(ListSpread.Kind.EXPORTS, asked), StandardCharsets.UTF_8));
        assertThat(checked.get("MaxResults").asInt()).isEqualTo(30); // the group refuses it
        assertThat(checked.has("NextToken")).isFalse();
        assertThat(ListSpread.checkBody(ListSpread.Kind.INSIGHTS, asked)).isSameAs(asked);
        byte[] notJson = "{".getBytes(StandardCharsets.UTF_8);
        assertThat(ListSpread.checkBody(ListSpread.Kind.IMPORTS, notJson)).isSameAs(notJson);
        // A token that is no string: the group refuses it as a single node does.
        byte[] numbered = "{\"NextToken\":5}".getBytes(StandardCharsets.UTF_8);
        assertThat(ListSpread.checkBody(ListSpread.Kind.EXPORTS, numbered)).isSameAs(numbered);
    }
}
