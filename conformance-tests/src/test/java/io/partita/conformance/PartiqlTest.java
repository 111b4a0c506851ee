package io.partita.conformance;

import static io.partita.conformance.support.AttributeValues.item;
import static io.partita.conformance.support.AttributeValues.n;
import static io.partita.conformance.support.AttributeValues.s;
import static io.partita.conformance.support.AttributeValues.ss;
import static org.assertj.core.api.Assertions.assertThat;

import io.partita.conformance.support.ApiErrors;
import io.partita.conformance.support.Endpoint;
import io.partita.conformance.support.IsolatedPartita;
import io.partita.conformance.support.PartitaExtension;
import io.partita.conformance.support.Tables;
import io.partita.storage.StorageConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DuplicateItemException;
import software.amazon.awssdk.services.dynamodb.model.ExecuteStatementResponse;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * ExecuteStatement (ql-reference.select/insert/update/delete): PartiQL statements as DynamoDB runs them — a SELECT by
 * key is as cheap as a GetItem, one by partition key a Query, any other a Scan; INSERT refuses an existing item,
 * UPDATE is not an upsert, DELETE of an absent item succeeds; errors in DynamoDB's words.
 */
@ExtendWith(PartitaExtension.class)
class PartiqlTest {
    private final DynamoDbClient ddb = Endpoint.client();

    private ExecuteStatementResponse run(String statement, AttributeValue... parameters) {
        return ddb.executeStatement(r -> {
            r.statement(statement).returnConsumedCapacity(ReturnConsumedCapacity.TOTAL);
            if (parameters.length > 0) {
                r.parameters(parameters);
            }
        });
    }

    /** A music table with three songs of one artist and one of another. */
    private String music(Tables tables) {
        String t = tables.rangeTable("artist", ScalarAttributeType.S, "song", ScalarAttributeType.S);
        run("INSERT INTO \"" + t + "\" VALUE {'artist': 'Acme', 'song': 'A', 'year': 2001, 'tags': <<'x', 'y'>>}");
        run("INSERT INTO \"" + t + "\" VALUE {'artist': 'Acme', 'song': 'B', 'year': 2002, 'info': {'len': 3, 'l':"
                + " [1, 2]}}");
        run("INSERT INTO \"" + t + "\" VALUE {'artist': 'Acme', 'song': 'C', 'year': 2003}");
        run("INSERT INTO \"" + t + "\" VALUE {'artist': 'Zed', 'song': 'A', 'year': 1999}");
        return t;
    }

    private static List<String> songs(ExecuteStatementResponse r) {
        return r.items().stream()
                .map(i -> i.get("artist").s() + "/" + i.get("song").s())
                .toList();
    }

    @Test
    void selectsAreGetItemQueryOrScanByTheirWhere(Tables tables) {
        String t = music(tables);
        var byKey = run("SELECT * FROM \"" + t + "\" WHERE artist = 'Acme' AND song = 'A'");
        assertThat(byKey.items())
                .containsExactly(item("artist", s("Acme"), "song", s("A"), "year", n("2001"), "tags", ss("x", "y")));
        // As a GetItem: half a unit, eventually consistent.
        assertThat(byKey.consumedCapacity().capacityUnits()).isEqualTo(0.5);
        var partition = run("SELECT * FROM \"" + t + "\" WHERE artist = 'Acme' AND song >= 'B'");
        assertThat(songs(partition)).containsExactly("Acme/B", "Acme/C");
        var ordered = run("SELECT song FROM \"" + t + "\" WHERE artist = 'Acme' ORDER BY song DESC");
        assertThat(ordered.items()).extracting(i -> i.get("song").s()).containsExactly("C", "B", "A");
        var scanned = run("SELECT * FROM \"" + t + "\" WHERE \"year\" < 2002");
        assertThat(songs(scanned)).containsExactlyInAnyOrder("Acme/A", "Zed/A");
        var filtered = run("SELECT * FROM \"" + t + "\" WHERE artist = 'Acme' AND begins_with(song, 'B') AND info IS"
                + " NOT MISSING AND size(info.l) = 2");
        assertThat(songs(filtered)).containsExactly("Acme/B");
        var nested = run("SELECT info.l[1] FROM \"" + t + "\" WHERE artist = 'Acme' AND song = 'B'");
        assertThat(nested.items())
                .containsExactly(Map.of(
                        "info", AttributeValue.fromM(Map.of("l", AttributeValue.fromL(List.of(n("2")))))));
        var none = run("SELECT * FROM \"" + t + "\" WHERE artist = 'Nobody' AND song = 'A'");
        assertThat(none.items()).isEmpty();
        var in = run("SELECT * FROM \"" + t + "\" WHERE artist IN ['Zed', 'Nobody']");
        assertThat(songs(in)).containsExactly("Zed/A");
    }

    @Test
    void parametersBindInOrder(Tables tables) {
        String t = music(tables);
        var r = run(
                "SELECT song FROM \"" + t + "\" WHERE artist = ? AND \"year\" BETWEEN ? AND ?",
                s("Acme"),
                n("2002"),
                n("2003"));
        assertThat(r.items()).extracting(i -> i.get("song").s()).containsExactly("B", "C");
        ApiErrors.assertValidation(
                "Number of parameters in request and statement don't match.",
                () -> run("SELECT * FROM \"" + t + "\" WHERE artist = ? AND song = ?", s("Acme")));
    }

    @Test
    void limitAndNextTokenPage(Tables tables) {
        String t = music(tables);
        List<String> seen = new ArrayList<>();
        String token = null;
        int pages = 0;
        do {
            String from = token;
            var page = ddb.executeStatement(r -> r.statement("SELECT * FROM \"" + t + "\" WHERE artist = 'Acme'")
                    .limit(2)
                    .nextToken(from));
            seen.addAll(songs(page));
            token = page.nextToken();
            pages++;
        } while (token != null && pages < 10);
        assertThat(seen).containsExactly("Acme/A", "Acme/B", "Acme/C");
        assertThat(pages).isGreaterThanOrEqualTo(2);
    }

    @Test
    void insertUpdateDelete(Tables tables) {
        String t = music(tables);
        ApiErrors.assertError(
                DuplicateItemException.class,
                "DuplicateItemException",
                "Duplicate primary key exists in table",
                () -> run("INSERT INTO \"" + t + "\" VALUE {'artist': 'Acme', 'song': 'A'}"));

        var updated = run("UPDATE \"" + t + "\" SET \"year\" = \"year\" + 10 SET tags = set_add(tags, <<'z'>>) REMOVE"
                + " nope WHERE artist = 'Acme' AND song = 'A' RETURNING ALL NEW *");
        assertThat(updated.items())
                .containsExactly(
                        item("artist", s("Acme"), "song", s("A"), "year", n("2011"), "tags", ss("x", "y", "z")));
        var modified = run("UPDATE \"" + t
                + "\" SET \"year\" = 1 WHERE artist = 'Acme' AND song = 'A' RETURNING MODIFIED" + " OLD *");
        assertThat(modified.items()).containsExactly(Map.of("year", n("2011")));
        // Not an upsert: no item, no write.
        ApiErrors.assertError(
                ConditionalCheckFailedException.class,
                "ConditionalCheckFailedException",
                "The conditional request failed",
                () -> run("UPDATE \"" + t + "\" SET x = 1 WHERE artist = 'Acme' AND song = 'Missing'"));
        // A further condition in the WHERE is the write's condition.
        ApiErrors.assertError(
                ConditionalCheckFailedException.class,
                "ConditionalCheckFailedException",
                "The conditional request failed",
                () -> run("UPDATE \"" + t + "\" SET x = 1 WHERE artist = 'Acme' AND song = 'A' AND \"year\" > 5000"));
        ApiErrors.assertValidation(
                "Where clause does not contain a mandatory equality on all key attributes",
                () -> run("UPDATE \"" + t + "\" SET x = 1 WHERE artist = 'Acme'"));

        var deleted = run("DELETE FROM \"" + t + "\" WHERE artist = 'Acme' AND song = 'C' RETURNING ALL OLD *");
        assertThat(deleted.items()).containsExactly(item("artist", s("Acme"), "song", s("C"), "year", n("2003")));
        assertThat(run("DELETE FROM \"" + t + "\" WHERE artist = 'Acme' AND song = 'C'")
                        .items())
                .isEmpty();
        assertThat(ddb.getItem(g -> g.tableName(t).key(Map.of("artist", s("Acme"), "song", s("C"))))
                        .hasItem())
                .isFalse();
    }

    /** RETURNING ALL OLD * and MODIFIED NEW *, contains and attribute_exists in a SELECT, ConsistentRead. */
    @Test
    void returningAndMoreFunctions(Tables tables) {
        String t = music(tables);
        var old =
                run("UPDATE \"" + t + "\" SET \"year\" = 2020 WHERE artist = 'Zed' AND song = 'A' RETURNING ALL OLD *");
        assertThat(old.items()).containsExactly(item("artist", s("Zed"), "song", s("A"), "year", n("1999")));
        var modifiedNew = run("UPDATE \"" + t + "\" SET \"year\" = 2021, extra = 'e' WHERE artist = 'Zed' AND song ="
                + " 'A' RETURNING MODIFIED NEW *");
        assertThat(modifiedNew.items()).containsExactly(Map.of("year", n("2021"), "extra", s("e")));

        assertThat(songs(run("SELECT * FROM \"" + t + "\" WHERE artist = 'Acme' AND contains(tags, 'y')")))
                .containsExactly("Acme/A");
        assertThat(songs(run("SELECT * FROM \"" + t + "\" WHERE attribute_exists(info)")))
                .containsExactly("Acme/B");
        var strong = ddb.executeStatement(r -> r.statement("SELECT * FROM \"" + t + "\" WHERE artist = 'Acme'")
                .consistentRead(true)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL));
        var eventual = ddb.executeStatement(r -> r.statement("SELECT * FROM \"" + t + "\" WHERE artist = 'Acme'")
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL));
        assertThat(songs(strong)).containsExactly("Acme/A", "Acme/B", "Acme/C");
        // A strongly consistent read costs twice an eventually consistent one, as the Query it is.
        assertThat(strong.consumedCapacity().capacityUnits())
                .isEqualTo(2 * eventual.consumedCapacity().capacityUnits());
    }

    /** A missing table is ResourceNotFoundException for every statement, and nothing is written. */
    @Test
    void aMissingTableForEveryStatement() {
        for (String statement : List.of(
                "INSERT INTO \"no-such-table-here\" VALUE {'id': 'a'}",
                "UPDATE \"no-such-table-here\" SET x = 1 WHERE id = 'a'",
                "DELETE FROM \"no-such-table-here\" WHERE id = 'a'",
                "SELECT * FROM \"no-such-table-here\" WHERE id IN ['a', 'b']")) {
            ApiErrors.assertError(
                    ResourceNotFoundException.class,
                    "ResourceNotFoundException",
                    "Requested resource not found",
                    () -> run(statement));
        }
    }

    @Test
    void errors(Tables tables) {
        String t = music(tables);
        ApiErrors.assertError(
                ResourceNotFoundException.class,
                "ResourceNotFoundException",
                "Requested resource not found",
                () -> run("SELECT * FROM \"no-such-table-here\""));
        ApiErrors.assertValidation(
                "Statement wasn't well formed, can't be processed: Unexpected term",
                () -> run("SELECT * FROM \"" + t + "\" WHERE"));
        ApiErrors.assertValidation(
                "Statement wasn't well formed, can't be processed: Missing right-hand side expression of infix operator",
                () -> run("SELECT * FROM \"" + t + "\" WHERE artist = 'a' AND"));
        ApiErrors.assertValidation("Aliasing is not supported", () -> run("SELECT * FROM \"" + t + "\" AS m"));
        ApiErrors.assertValidation(
                "Statement wasn't well formed, can't be processed: Unexpected keyword",
                () -> run("INSERT INTO \"" + t + "\" (artist) VALUES ('x')"));
    }

    /** WHERE clauses a Query cannot take as its filter, NULL tests, and statements that must fail cleanly. */
    @Test
    void harderWhereClauses(Tables tables) {
        String t = music(tables);
        // Two conditions on the sort key: one is the key condition, the other applies after the Query.
        var between = run("SELECT song FROM \"" + t + "\" WHERE artist = 'Acme' AND song > 'A' AND song < 'C'");
        assertThat(between.items()).containsExactly(Map.of("song", s("B")));
        var backwards = run("SELECT * FROM \"" + t + "\" WHERE song > 'A' AND artist = 'Acme' AND NOT song = 'C'");
        assertThat(songs(backwards)).containsExactly("Acme/B");
        assertThat(songs(run("SELECT * FROM \"" + t + "\" WHERE artist = 'Acme' AND info IS NOT NULL")))
                .containsExactly("Acme/B");
        assertThat(songs(run("SELECT * FROM \"" + t + "\" WHERE artist = 'Acme' AND info IS NULL AND \"year\" > 2001")))
                .containsExactly("Acme/C");
        assertThat(songs(run("SELECT * FROM \"" + t + "\" WHERE artist = 'Acme' AND info IS MAP")))
                .containsExactly("Acme/B");
        StringBuilder ors = new StringBuilder("SELECT * FROM \"" + t + "\" WHERE artist = 'Acme' AND (song = 'B'");
        for (int i = 0; i < 40; i++) {
            ors.append(" OR song = 'x").append(i).append("'");
        }
        assertThat(songs(run(ors.append(")").toString()))).containsExactly("Acme/B");
        ApiErrors.assertError(
                software.amazon.awssdk.services.dynamodb.model.DynamoDbException.class,
                "ValidationException",
                // A null attribute value is refused where it is read, as an attribute value of no type.
                "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes",
                () -> ddb.executeStatement(r -> r.statement("SELECT * FROM \"" + t + "\" WHERE artist = ?")
                        .parameters(java.util.Collections.singletonList(null))));
        String deep = "(".repeat(500) + "artist = 'a'" + ")".repeat(500);
        Throwable nested =
                org.assertj.core.api.Assertions.catchThrowable(() -> run("SELECT * FROM \"" + t + "\" WHERE " + deep));
        assertThat(((software.amazon.awssdk.services.dynamodb.model.DynamoDbException) nested).statusCode())
                .isEqualTo(400);
        String deepItem = "{'a': ".repeat(40) + "1" + "}".repeat(40);
        ApiErrors.assertValidation(
                "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond"
                        + " supported limit",
                () -> run("INSERT INTO \"" + t + "\" VALUE {'artist': 'D', 'song': 'D', 'x': " + deepItem + "}"));
    }

    @Test
    void aNextTokenBelongsToItsStatement(Tables tables) {
        String t = music(tables);
        var first = ddb.executeStatement(r ->
                r.statement("SELECT * FROM \"" + t + "\" WHERE artist = 'Acme'").limit(1));
        assertThat(first.nextToken()).isNotNull();
        ApiErrors.assertValidation(
                "NextToken does not match request",
                () -> ddb.executeStatement(r -> r.statement("SELECT * FROM \"" + t + "\" WHERE artist = 'Zed'")
                        .nextToken(first.nextToken())));
        ApiErrors.assertValidation(
                "Invalid NextToken",
                () -> ddb.executeStatement(r -> r.statement("SELECT * FROM \"" + t + "\" WHERE artist = 'Acme'")
                        .nextToken("not-a-token")));
    }

    /** {@code "table"."index"} reads a GSI: by its partition key as a Query of the index, otherwise a Scan of it. */
    @Test
    void selectFromAnIndex(Tables tables) {
        String t = tables.create(software.amazon.awssdk.services.dynamodb.model.CreateTableRequest.builder()
                .attributeDefinitions(
                        CreateTableTest.attr("id", ScalarAttributeType.S),
                        CreateTableTest.attr("owner", ScalarAttributeType.S),
                        CreateTableTest.attr("at", ScalarAttributeType.N))
                .keySchema(CreateTableTest.key("id", software.amazon.awssdk.services.dynamodb.model.KeyType.HASH))
                .globalSecondaryIndexes(GlobalSecondaryIndexTest.gsi(
                        "by-owner",
                        software.amazon.awssdk.services.dynamodb.model.ProjectionType.ALL,
                        CreateTableTest.key("owner", software.amazon.awssdk.services.dynamodb.model.KeyType.HASH),
                        CreateTableTest.key("at", software.amazon.awssdk.services.dynamodb.model.KeyType.RANGE)))
                .billingMode(software.amazon.awssdk.services.dynamodb.model.BillingMode.PAY_PER_REQUEST));
        for (int i = 0; i < 4; i++) {
            String owner = i % 2 == 0 ? "ann" : "bob";
            run(
                    "INSERT INTO \"" + t + "\" VALUE {'id': ?, 'owner': ?, 'at': ?}",
                    s("i" + i),
                    s(owner),
                    n(String.valueOf(i)));
        }
        io.partita.conformance.support.Indexes.await(ddb, t);
        var ann = run("SELECT id FROM \"" + t + "\".\"by-owner\" WHERE owner = 'ann' ORDER BY at DESC");
        assertThat(ann.items()).extracting(i -> i.get("id").s()).containsExactly("i2", "i0");
        var late = run("SELECT id FROM \"" + t + "\".\"by-owner\" WHERE at >= 2");

        assertThat(late.items()).extracting(i -> i.get("id").s()).containsExactlyInAnyOrder("i2", "i3");
    }

    /**
     * {@code pk IN [...]} and {@code pk = a OR pk = b} read those partitions and nothing else ("PartiQL select
     * statements for DynamoDB" lists both among the statements that do not scan), with the rest of the WHERE applied.
     */
    @Test
    void inAndOrOnThePartitionKeyReadThosePartitions(Tables tables) {
        String t = music(tables);
        var in = run("SELECT * FROM \"" + t + "\" WHERE artist IN ['Zed', 'Acme', 'Nobody']");
        assertThat(songs(in)).containsExactlyInAnyOrder("Zed/A", "Acme/A", "Acme/B", "Acme/C");
        // Within a partition the items come in sort-key order, as a Query returns them.
        assertThat(songs(in).stream().filter(x -> x.startsWith("Acme")).toList())
                .containsExactly("Acme/A", "Acme/B", "Acme/C");
        var or = run("SELECT song FROM \"" + t + "\" WHERE (artist = 'Acme' OR artist = 'Zed') AND song = 'A'");
        assertThat(or.items()).extracting(i -> i.get("song").s()).containsExactly("A", "A");
        var filtered = run("SELECT * FROM \"" + t + "\" WHERE artist IN ['Acme', 'Zed'] AND \"year\" > 2000");
        assertThat(songs(filtered)).containsExactlyInAnyOrder("Acme/A", "Acme/B", "Acme/C");
        var parameters = run("SELECT * FROM \"" + t + "\" WHERE artist IN [?, ?] AND song = 'B'", s("Acme"), s("Zed"));
        assertThat(songs(parameters)).containsExactly("Acme/B");
    }

    /** Many partition key values, or a small Limit, page through NextToken without losing or repeating an item. */
    @Test
    void aSelectOfManyPartitionsPages(Tables tables) {
        String t = tables.hashTable("id", ScalarAttributeType.S);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            ids.add("k" + i);
            run("INSERT INTO \"" + t + "\" VALUE {'id': 'k" + i + "', 'n': " + i + "}");
        }
        String list = String.join(", ", ids.stream().map(x -> "'" + x + "'").toList());
        for (Integer limit : new Integer[] {null, 3}) {
            List<String> seen = new ArrayList<>();
            String token = null;
            int pages = 0;
            do {
                String from = token;
                var page = ddb.executeStatement(
                        r -> r.statement("SELECT id FROM \"" + t + "\" WHERE id IN [" + list + ", 'absent']")
                                .limit(limit)
                                .nextToken(from));
                page.items().forEach(i -> seen.add(i.get("id").s()));
                token = page.nextToken();
                pages++;
            } while (token != null && pages < 100);
            assertThat(seen).as("Limit %s", limit).containsExactlyInAnyOrderElementsOf(ids);
            assertThat(pages).as("Limit %s", limit).isGreaterThan(1);
        }
    }

    /** "at max 50 hash attribute values" (ql-operators): 51 are refused before anything is read. */
    @Test
    void fiftyPartitionKeyValuesAtMost(Tables tables) {
        String t = tables.hashTable("id", ScalarAttributeType.S);
        List<String> values = new ArrayList<>();
        for (int i = 0; i < 51; i++) {
            values.add("'v" + i + "'");
        }
        Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(
                () -> run("SELECT * FROM \"" + t + "\" WHERE id IN [" + String.join(", ", values) + "]"));
        assertThat(thrown).isInstanceOf(software.amazon.awssdk.services.dynamodb.model.DynamoDbException.class);
        var e = (software.amazon.awssdk.services.dynamodb.model.DynamoDbException) thrown;
        assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ValidationException");
        var fifty = run("SELECT * FROM \"" + t + "\" WHERE id IN [" + String.join(", ", values.subList(0, 50)) + "]");
        assertThat(fifty.items()).isEmpty();
    }

    /** "A SELECT without the key is still a scan": counted per table in /metrics (and logged once per statement). */
    @Test
    @Tag("partita-only")
    void aSelectThatScansIsCounted() {
        try (IsolatedPartita partita = IsolatedPartita.start(StorageConfig.memory())) {
            DynamoDbClient client = partita.client();
            String t = partita.tables().hashTable("id", ScalarAttributeType.S);
            client.executeStatement(r -> r.statement("SELECT * FROM \"" + t + "\" WHERE id = 'a'"));
            assertThat(partita.prometheus()).doesNotContain("partita_partiql_scans_total{table=\"" + t + "\"}");
            client.executeStatement(r -> r.statement("SELECT * FROM \"" + t + "\" WHERE n > 1"));
            client.executeStatement(r -> r.statement("SELECT * FROM \"" + t + "\""));
            assertThat(partita.prometheus()).contains("partita_partiql_scans_total{table=\"" + t + "\"} 2.0");
            // Partition key values by IN or OR are Queries, not scans; an OR with another attribute is a scan.
            client.executeStatement(r -> r.statement("SELECT * FROM \"" + t + "\" WHERE id IN ['a', 'b']"));
            client.executeStatement(r -> r.statement("SELECT * FROM \"" + t + "\" WHERE id = 'a' OR id = 'b'"));
            assertThat(partita.prometheus()).contains("partita_partiql_scans_total{table=\"" + t + "\"} 2.0");
            client.executeStatement(r -> r.statement("SELECT * FROM \"" + t + "\" WHERE id = 'a' OR n = 1"));
            assertThat(partita.prometheus()).contains("partita_partiql_scans_total{table=\"" + t + "\"} 3.0");
        }
    }
}
