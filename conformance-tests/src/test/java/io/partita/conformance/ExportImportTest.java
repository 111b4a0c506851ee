package io.partita.conformance;

import static io.partita.conformance.support.AttributeValues.item;
import static io.partita.conformance.support.AttributeValues.n;
import static io.partita.conformance.support.AttributeValues.s;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.partita.conformance.support.ApiErrors;
import io.partita.conformance.support.IsolatedPartita;
import io.partita.storage.StorageConfig;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.ExportDescription;
import software.amazon.awssdk.services.dynamodb.model.ExportNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ExportStatus;
import software.amazon.awssdk.services.dynamodb.model.ImportStatus;
import software.amazon.awssdk.services.dynamodb.model.ImportTableDescription;
import software.amazon.awssdk.services.dynamodb.model.InputCompressionType;
import software.amazon.awssdk.services.dynamodb.model.InputFormat;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.PointInTimeRecoveryUnavailableException;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * ExportTableToPointInTime and ImportTable against a directory that stands for S3 (each bucket a directory): an
 * export in DynamoDB's layout and format, an import of it into a new table, and DynamoDB's errors and failures.
 * Partita-only: against DynamoDB these need an S3 bucket.
 */
@Tag("partita-only")
@SuppressWarnings("unchecked") // the SDK's varargs of builder lambdas
class ExportImportTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static String enablePitr(DynamoDbClient ddb, String t) {
        ddb.updateContinuousBackups(
                u -> u.tableName(t).pointInTimeRecoverySpecification(p -> p.pointInTimeRecoveryEnabled(true)));
        return ddb.describeTable(d -> d.tableName(t)).table().tableArn();
    }

    private static List<String> gunzipLines(Path file) throws IOException {
        try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        }
    }

    @Test
    void anExportImportsIntoANewTable(@TempDir Path s3) throws Exception {
        Files.createDirectories(s3.resolve("lake"));
        try (IsolatedPartita partita =
                IsolatedPartita.start(StorageConfig.memory().withS3Dir(s3))) {
            DynamoDbClient ddb = partita.client();
            String t = partita.tables().hashTable("id", ScalarAttributeType.S);
            String arn = enablePitr(ddb, t);
            for (int i = 0; i < 25; i++) {
                String id = "k" + i;
                String number = String.valueOf(i);
                ddb.putItem(p -> p.tableName(t).item(item("id", s(id), "n", n(number), "b", s("x"))));
            }
            ExportDescription started = ddb.exportTableToPointInTime(e ->
                            e.tableArn(arn).s3Bucket("lake").s3Prefix("exports").clientToken("nightly-1"))
                    .exportDescription();
            assertThat(started.exportArn()).matches(arn.replace(".", "\\.") + "/export/\\d{14}-[0-9a-f]{8}");
            assertThat(started.exportStatus()).isEqualTo(ExportStatus.IN_PROGRESS);
            ExportDescription done =
                    ddb.describeExport(d -> d.exportArn(started.exportArn())).exportDescription();
            assertThat(done.exportStatus()).isEqualTo(ExportStatus.COMPLETED);
            assertThat(done.itemCount()).isEqualTo(25L);
            String id = started.exportArn().substring(started.exportArn().lastIndexOf('/') + 1);
            assertThat(done.exportManifest()).isEqualTo("exports/AWSDynamoDB/" + id + "/manifest-summary.json");
            // The same token and request: the same export, not another.
            assertThat(ddb.exportTableToPointInTime(e -> e.tableArn(arn)
                                    .s3Bucket("lake")
                                    .s3Prefix("exports")
                                    .clientToken("nightly-1"))
                            .exportDescription()
                            .exportArn())
                    .isEqualTo(started.exportArn());
            assertThat(ddb.listExports(l -> l.tableArn(arn)).exportSummaries())
                    .extracting(x -> x.exportArn())
                    .containsExactly(started.exportArn());

            // DynamoDB's layout: the manifests, and one {"Item": …} line per item in gzipped data files.
            Path base = s3.resolve("lake/exports/AWSDynamoDB/" + id);
            JsonNode summary =
                    JSON.readTree(base.resolve("manifest-summary.json").toFile());
            assertThat(summary.get("exportArn").asText()).isEqualTo(started.exportArn());
            assertThat(summary.get("itemCount").asLong()).isEqualTo(25);
            assertThat(summary.get("outputFormat").asText()).isEqualTo("DYNAMODB_JSON");
            JsonNode files = JSON.readTree(Files.readString(base.resolve("manifest-files.json")));
            Path data = s3.resolve("lake").resolve(files.get("dataFileS3Key").asText());
            List<String> lines = gunzipLines(data);
            assertThat(lines).hasSize(25);
            assertThat(JSON.readTree(lines.get(0))
                            .get("Item")
                            .get("id")
                            .get("S")
                            .asText())
                    .startsWith("k");

            String target = "imported-orders";
            ImportTableDescription importing = ddb.importTable(r -> r.s3BucketSource(
                                    b -> b.s3Bucket("lake").s3KeyPrefix("exports/AWSDynamoDB/" + id + "/data/"))
                            .inputFormat(InputFormat.DYNAMODB_JSON)
                            .inputCompressionType(InputCompressionType.GZIP)
                            .tableCreationParameters(c -> c.tableName(target)
                                    .attributeDefinitions(
                                            a -> a.attributeName("id").attributeType(ScalarAttributeType.S))
                                    .keySchema(k -> k.attributeName("id").keyType(KeyType.HASH))
                                    .billingMode("PAY_PER_REQUEST")))
                    .importTableDescription();
            assertThat(importing.importStatus()).isEqualTo(ImportStatus.IN_PROGRESS);
            ImportTableDescription imported =
                    ddb.describeImport(d -> d.importArn(importing.importArn())).importTableDescription();
            assertThat(imported.importStatus()).isEqualTo(ImportStatus.COMPLETED);
            assertThat(imported.importedItemCount()).isEqualTo(25L);
            assertThat(imported.processedItemCount()).isEqualTo(25L);
            assertThat(imported.errorCount()).isZero();
            assertThat(ddb.scan(r -> r.tableName(target)).items())
                    .containsExactlyInAnyOrderElementsOf(
                            ddb.scan(r -> r.tableName(t)).items());
            assertThat(ddb.listImports(l -> l.tableArn(imported.tableArn())).importSummaryList())
                    .extracting(x -> x.importArn())
                    .containsExactly(importing.importArn());
        }
    }

    /** On disk, the records of exports and imports outlive a restart, as DynamoDB's outlive any one request. */
    @Test
    void theRecordsOutliveARestart(@TempDir Path dir) throws Exception {
        Path s3 = dir.resolve("s3");
        Files.createDirectories(s3.resolve("lake"));
        StorageConfig storage = StorageConfig.disk(dir.resolve("data")).withS3Dir(s3);
        String exportArn;
        String tableArn;
        try (IsolatedPartita partita = IsolatedPartita.start(storage)) {
            DynamoDbClient ddb = partita.client();
            String t = partita.tables().hashTable("id", ScalarAttributeType.S);
            tableArn = enablePitr(ddb, t);
            ddb.putItem(p -> p.tableName(t).item(item("id", s("a"))));
            exportArn = ddb.exportTableToPointInTime(
                            e -> e.tableArn(tableArn).s3Bucket("lake").clientToken("once"))
                    .exportDescription()
                    .exportArn();
        }
        try (IsolatedPartita partita = IsolatedPartita.start(storage)) {
            DynamoDbClient ddb = partita.client();
            ExportDescription d =
                    ddb.describeExport(r -> r.exportArn(exportArn)).exportDescription();
            assertThat(d.exportStatus()).isEqualTo(ExportStatus.COMPLETED);
            assertThat(d.itemCount()).isEqualTo(1L);
            assertThat(ddb.listExports(l -> l.tableArn(tableArn)).exportSummaries())
                    .extracting(x -> x.exportArn())
                    .containsExactly(exportArn);
            // Its ClientToken is still known: the same request answers the same export.
            assertThat(ddb.exportTableToPointInTime(
                                    e -> e.tableArn(tableArn).s3Bucket("lake").clientToken("once"))
                            .exportDescription()
                            .exportArn())
                    .isEqualTo(exportArn);
        }
    }

    @Test
    void failuresAndErrorsAsDynamoDbAnswersThem(@TempDir Path s3) throws Exception {
        Files.createDirectories(s3.resolve("lake/bad"));
        try (GZIPOutputStream out = new GZIPOutputStream(Files.newOutputStream(s3.resolve("lake/bad/part.json.gz")))) {
            out.write(("{\"Item\":{\"id\":{\"S\":\"ok\"}}}\n{\"Item\":{\"other\":{\"S\":\"no key\"}}}\nnot json\n")
                    .getBytes(StandardCharsets.UTF_8));
        }
        try (IsolatedPartita partita =
                IsolatedPartita.start(StorageConfig.memory().withS3Dir(s3))) {
            DynamoDbClient ddb = partita.client();
            String t = partita.tables().hashTable("id", ScalarAttributeType.S);
            String arn = ddb.describeTable(d -> d.tableName(t)).table().tableArn();
            ApiErrors.assertError(
                    PointInTimeRecoveryUnavailableException.class,
                    "PointInTimeRecoveryUnavailableException",
                    "Point in time recovery is not enabled for table '" + t + "'",
                    () -> ddb.exportTableToPointInTime(e -> e.tableArn(arn).s3Bucket("lake")));
            ApiErrors.assertValidation(
                    "One or more parameter values were invalid: tableArn is not a valid ARN",
                    () -> ddb.exportTableToPointInTime(e -> e.tableArn(t).s3Bucket("lake")));
            enablePitr(ddb, t);
            // Here S3 is a directory: a prefix must not lead out of the bucket's.
            for (String prefix : java.util.List.of("../escape", "/etc", "a/../../b")) {
                ApiErrors.assertValidation(
                        "S3Prefix must not lead out of the bucket (no '..' segments, no leading '/'): " + prefix,
                        () -> ddb.exportTableToPointInTime(
                                e -> e.tableArn(arn).s3Bucket("lake").s3Prefix(prefix)));
            }
            assertThat(Files.exists(s3.resolve("escape"))).isFalse();
            // A bucket that does not exist: accepted, then FAILED, as DynamoDB's export fails later.
            String missing = ddb.exportTableToPointInTime(e -> e.tableArn(arn).s3Bucket("nowhere"))
                    .exportDescription()
                    .exportArn();
            ExportDescription failed =
                    ddb.describeExport(d -> d.exportArn(missing)).exportDescription();
            assertThat(failed.exportStatus()).isEqualTo(ExportStatus.FAILED);
            assertThat(failed.failureCode()).isEqualTo("S3NoSuchBucket");
            ApiErrors.assertValidation(
                    "Invalid Export ARN", () -> ddb.describeExport(d -> d.exportArn(arn + "/stream/x-yz-abc-def")));
            ApiErrors.assertError(
                    ExportNotFoundException.class,
                    "ExportNotFoundException",
                    "Export not found: Export not found: " + arn + "/export/01700000000000-00000000",
                    () -> ddb.describeExport(d -> d.exportArn(arn + "/export/01700000000000-00000000")));

            ApiErrors.assertError(
                    ResourceInUseException.class,
                    "ResourceInUseException",
                    "Table already exists: " + t,
                    () -> ddb.importTable(r -> r.s3BucketSource(b -> b.s3Bucket("lake"))
                            .inputFormat(InputFormat.DYNAMODB_JSON)
                            .tableCreationParameters(c -> c.tableName(t)
                                    .attributeDefinitions(
                                            a -> a.attributeName("id").attributeType(ScalarAttributeType.S))
                                    .keySchema(k -> k.attributeName("id").keyType(KeyType.HASH))
                                    .billingMode("PAY_PER_REQUEST"))));
            // Lines that are not items of the table: counted, the import FAILED, the valid ones imported.
            String partial = ddb.importTable(r -> r.s3BucketSource(
                                    b -> b.s3Bucket("lake").s3KeyPrefix("bad/"))
                            .inputFormat(InputFormat.DYNAMODB_JSON)
                            .inputCompressionType(InputCompressionType.GZIP)
                            .tableCreationParameters(c -> c.tableName("partial-import")
                                    .attributeDefinitions(
                                            a -> a.attributeName("id").attributeType(ScalarAttributeType.S))
                                    .keySchema(k -> k.attributeName("id").keyType(KeyType.HASH))
                                    .billingMode("PAY_PER_REQUEST")))
                    .importTableDescription()
                    .importArn();
            ImportTableDescription outcome =
                    ddb.describeImport(d -> d.importArn(partial)).importTableDescription();
            assertThat(outcome.importStatus()).isEqualTo(ImportStatus.FAILED);
            assertThat(outcome.failureCode()).isEqualTo("ItemValidationError");
            assertThat(outcome.processedItemCount()).isEqualTo(3L);
            assertThat(outcome.importedItemCount()).isEqualTo(1L);
            assertThat(outcome.errorCount()).isEqualTo(2L);
            List<Map<String, software.amazon.awssdk.services.dynamodb.model.AttributeValue>> rows =
                    new ArrayList<>(ddb.scan(r -> r.tableName("partial-import")).items());
            assertThat(rows).containsExactly(item("id", s("ok")));
        }
    }
}
