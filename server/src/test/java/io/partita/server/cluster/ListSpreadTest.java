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

    @Test
    void aGroupIsAskedForItsPagesWithoutTheClientsLimitAndCursor() throws Exception {
        ObjectNode asked = request(
                "{'Limit':1,'ExclusiveStartBackupArn':'arn:x/backup/1','TimeRangeLowerBound':5,'BackupType':'ALL'}");
        JsonNode body = json(new String(
                ListSpread.pageBody(ListSpread.Kind.BACKUPS, asked, "arn:y/backup/2"), StandardCharsets.UTF_8));
        assertThat(body.has("Limit")).isFalse();
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
    }
}
