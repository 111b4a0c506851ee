package io.partita.server.op.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.partita.protocol.message.ExportDescription;
import io.partita.protocol.message.ExportTableToPointInTimeInput;
import io.partita.storage.StorageConfig;
import io.partita.storage.StorageEngine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where the records of exports and imports live: in the store beside the tables (so a cluster replicates them), and
 * records an older version kept as files move into it.
 */
class S3TransfersTest {
    private static final String ARN =
            "arn:aws:dynamodb:us-east-1:000000000000:table/orders/export/01700000000000-0000abcd";

    private static S3Transfers.ExportRecord export(String token) {
        // The description and the request as DynamoDB's JSON has them.
        ExportDescription d = json(
                "{\"ExportArn\":\"" + ARN + "\",\"ExportStatus\":\"COMPLETED\",\"ClientToken\":\"" + token
                        + "\",\"S3Bucket\":\"lake\",\"ExportFormat\":\"DYNAMODB_JSON\",\"ItemCount\":3,"
                        + "\"ExportType\":\"FULL_EXPORT\"}",
                ExportDescription.class);
        ExportTableToPointInTimeInput in = json(
                "{\"TableArn\":\"arn:aws:dynamodb:us-east-1:000000000000:table/orders\"," + "\"ClientToken\":\"" + token
                        + "\",\"S3Bucket\":\"lake\"}",
                ExportTableToPointInTimeInput.class);
        assertThat(d.itemCount()).isEqualTo(3L);
        assertThat(in.clientToken()).isEqualTo(token);
        return new S3Transfers.ExportRecord(d, in);
    }

    private static <T> T json(String text, Class<T> type) {
        try {
            return io.partita.protocol.json.DynamoJson.mapper().readValue(text, type);
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }

    private static List<String> records(StorageEngine engine, String kind) {
        List<String> ids = new ArrayList<>();
        engine.forEachRecord(kind, (id, json) -> ids.add(id));
        return ids;
    }

    @Test
    void recordsAreKeptInTheStoreAndReadBackWhenItOpensAgain(@TempDir Path dir) {
        StorageConfig config = StorageConfig.disk(dir.resolve("data"));
        try (StorageEngine engine = StorageEngine.open(config)) {
            S3Transfers transfers = new S3Transfers(dir.resolve("s3"), engine, dir.resolve("data/transfers"));
            transfers.remember(export("nightly"), true);
            assertThat(records(engine, "exports")).containsExactly("01700000000000-0000abcd");
            assertThat(records(engine, "imports")).isEmpty();
        }
        assertThat(dir.resolve("data/transfers")).doesNotExist();
        try (StorageEngine engine = StorageEngine.open(config)) {
            S3Transfers transfers = new S3Transfers(dir.resolve("s3"), engine, dir.resolve("data/transfers"));
            assertThat(transfers.exports).containsKey(ARN);
            assertThat(transfers.exports.get(ARN).description().itemCount()).isEqualTo(3L);
            assertThat(transfers.exportTokens).containsEntry("nightly", ARN);
        }
    }

    @Test
    void recordsKeptAsFilesMoveIntoTheStore(@TempDir Path dir) throws Exception {
        // A record as an older version wrote it: transfers/exports/<id>.json, the same JSON.
        byte[][] json = new byte[1][];
        try (StorageEngine scratch = StorageEngine.open(StorageConfig.memory())) {
            new S3Transfers(dir.resolve("s3"), scratch, null).remember(export("weekly"), true);
            scratch.forEachRecord("exports", (id, value) -> json[0] = value);
        }
        Path legacy = dir.resolve("data/transfers");
        Files.createDirectories(legacy.resolve("exports"));
        Files.write(legacy.resolve("exports/01700000000000-0000abcd.json"), json[0]);
        Files.write(legacy.resolve("exports/01700000000000-0000abcd.json.tmp"), new byte[] {'{'});

        StorageConfig config = StorageConfig.disk(dir.resolve("data"));
        try (StorageEngine engine = StorageEngine.open(config)) {
            S3Transfers transfers = new S3Transfers(dir.resolve("s3"), engine, legacy);
            assertThat(transfers.exportTokens).containsEntry("weekly", ARN);
            assertThat(records(engine, "exports")).containsExactly("01700000000000-0000abcd");
        }
        // The files are gone (a half-written one too), and the record is the store's from now on.
        assertThat(legacy.resolve("exports")).doesNotExist();
        try (StorageEngine engine = StorageEngine.open(config)) {
            assertThat(new S3Transfers(dir.resolve("s3"), engine, legacy).exports)
                    .containsKey(ARN);
        }
    }
}
