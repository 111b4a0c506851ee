package io.partita.server.op.table;

import com.fasterxml.jackson.databind.JsonNode;
import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.message.ExportDescription;
import io.partita.protocol.message.ExportDescriptionOutput;
import io.partita.protocol.message.ExportTableToPointInTimeInput;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.op.TableNames;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.table.TableCatalog.Table;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * ExportTableToPointInTime: the table's items at {@code ExportTime} (now when not given; PITR must be on, as in
 * DynamoDB) written in DynamoDB JSON to the bucket, a directory of the S3 root ({@link S3Transfers}). The export runs
 * before the answer, which says {@code IN_PROGRESS} as DynamoDB's does; DescribeExport says {@code COMPLETED}, or
 * {@code FAILED} with {@code S3NoSuchBucket} when the bucket's directory does not exist. A {@code ClientToken} sent
 * again with the same request answers the same export, with another is ExportConflictException. Not yet: {@code ION}
 * and incremental exports, refused as such.
 */
public final class ExportTableToPointInTimeHandler
        implements OperationHandler<ExportTableToPointInTimeInput, ExportDescriptionOutput> {
    static final Pattern BUCKET = Pattern.compile("^[a-z0-9A-Z]+[\\.\\-\\w]*[a-z0-9A-Z]+$");

    private final StorageEngine storage;
    private final S3Transfers transfers;

    ExportTableToPointInTimeHandler(StorageEngine storage, S3Transfers transfers) {
        this.storage = storage;
        this.transfers = transfers;
    }

    @Override
    public Class<ExportTableToPointInTimeInput> inputType() {
        return ExportTableToPointInTimeInput.class;
    }

    @Override
    public ExportDescriptionOutput handle(RequestContext context, ExportTableToPointInTimeInput in) {
        ConstraintSet c = new ConstraintSet();
        c.notNull("tableArn", in.tableArn()).length("tableArn", in.tableArn(), 1, 1024);
        c.notNull("s3Bucket", in.s3Bucket())
                .length("s3Bucket", in.s3Bucket(), 0, 255)
                .pattern("s3Bucket", in.s3Bucket(), BUCKET);
        c.pattern("s3BucketOwner", in.s3BucketOwner(), Pattern.compile("[0-9]{12}"));
        c.length("s3Prefix", in.s3Prefix(), 0, 1024);
        c.enumValue("s3SseAlgorithm", in.s3SseAlgorithm(), List.of("AES256", "KMS"));
        c.length("s3SseKmsKeyId", in.s3SseKmsKeyId(), 1, 2048);
        c.enumValue("exportFormat", in.exportFormat(), List.of("DYNAMODB_JSON", "ION"));
        c.enumValue("exportType", in.exportType(), List.of("FULL_EXPORT", "INCREMENTAL_EXPORT"));
        c.pattern("clientToken", in.clientToken(), Pattern.compile("^[^$]+$"));
        c.check();
        if (!in.tableArn().startsWith("arn:")) {
            throw ApiException.invalidParameter("tableArn is not a valid ARN");
        }
        if (!transfers.inside(in.s3Bucket(), in.s3Prefix())) {
            // Partita's own refusal: its S3 is a directory, and a key must not lead out of it.
            throw ApiException.validation("S3Prefix must not lead out of the bucket (no '..' segments, no leading"
                    + " '/'): " + in.s3Prefix());
        }
        if (in.s3SseKmsKeyId() != null && !"KMS".equals(in.s3SseAlgorithm())) {
            throw ApiException.validation("Invalid Request: KMS Key Id is not supported for this encryption type");
        }
        if ("ION".equals(in.exportFormat())) {
            throw ApiException.validation("Partita does not implement exports in ION yet: use DYNAMODB_JSON");
        }
        if ("INCREMENTAL_EXPORT".equals(in.exportType()) || present(in.incrementalExportSpecification())) {
            throw ApiException.validation("Partita does not implement incremental exports yet: use FULL_EXPORT");
        }
        if (in.exportTime() != null
                && !in.exportTime().isNull()
                && !in.exportTime().isNumber()) {
            throw ApiException.serialization("class java.lang.String can not be converted to milliseconds since epoch");
        }
        if (in.clientToken() != null) {
            String earlier = transfers.exportTokens.get(in.clientToken());
            if (earlier != null) {
                S3Transfers.ExportRecord r = transfers.exports.get(earlier);
                if (!Objects.equals(r.request(), in)) {
                    throw new ApiException(
                            ErrorCode.EXPORT_CONFLICT,
                            "Export conflict: Duplicate request detected with conflicting parameters");
                }
                return new ExportDescriptionOutput(r.description());
            }
        }
        String name = TableNames.resolve(context, in.tableArn());
        Table t = storage.tables().find(name);
        if (t == null) {
            throw new ApiException(ErrorCode.TABLE_NOT_FOUND, "Table not found: " + in.tableArn());
        }
        if (!t.metadata().pitrEnabled()) {
            throw new ApiException(
                    ErrorCode.POINT_IN_TIME_RECOVERY_UNAVAILABLE,
                    "Point in time recovery is not enabled for table '" + name + "'");
        }
        long now = context.clock().millis();
        long at = in.exportTime() == null || in.exportTime().isNull()
                ? now
                : in.exportTime().decimalValue().movePointRight(3).longValue();
        if (at < storage.pitr().earliestMillis(t) || at > storage.pitr().latestMillis()) {
            throw new ApiException(ErrorCode.INVALID_EXPORT_TIME, "Export Time is invalid");
        }
        String id = S3Transfers.id(now);
        String tableArn = TableNames.arn(context, name);
        String token = in.clientToken() != null
                ? in.clientToken()
                : java.util.UUID.randomUUID().toString();
        String sse = in.s3SseAlgorithm() != null ? in.s3SseAlgorithm() : "AES256";
        ExportDescription started = new ExportDescription(
                tableArn + "/export/" + id,
                "IN_PROGRESS",
                TableDescriptions.seconds(now),
                null,
                null,
                tableArn,
                t.metadata().id(),
                TableDescriptions.seconds(at),
                token,
                in.s3Bucket(),
                in.s3BucketOwner(),
                in.s3Prefix(),
                sse,
                in.s3SseKmsKeyId(),
                null,
                null,
                "DYNAMODB_JSON",
                null,
                null,
                in.exportType());
        ExportDescription finished;
        if (!Files.isDirectory(transfers.bucket(in.s3Bucket()))) {
            finished = end(
                    started,
                    context,
                    "FAILED",
                    null,
                    0,
                    0,
                    "S3NoSuchBucket",
                    "The specified bucket does not"
                            + " exist (Service: Amazon S3; Status Code: 404; Error Code: NoSuchBucket)");
        } else {
            try {
                var written = transfers.export(
                        in.s3Bucket(), in.s3Prefix(), id, storage.pitr().itemsAt(t, at), started);
                finished = end(
                        started,
                        context,
                        "COMPLETED",
                        written.manifest(),
                        written.items(),
                        written.bytes(),
                        null,
                        null);
            } catch (IOException e) {
                finished = end(
                        started,
                        context,
                        "FAILED",
                        null,
                        0,
                        0,
                        "UNKNOWN",
                        "Writing the export failed: " + e.getMessage());
            }
        }
        transfers.remember(new S3Transfers.ExportRecord(finished, in), true);
        return new ExportDescriptionOutput(started);
    }

    private static boolean present(JsonNode v) {
        return v != null && !v.isNull();
    }

    private static ExportDescription end(
            ExportDescription d,
            RequestContext context,
            String status,
            String manifest,
            long items,
            long bytes,
            String failureCode,
            String failureMessage) {
        boolean done = "COMPLETED".equals(status);
        return new ExportDescription(
                d.exportArn(),
                status,
                d.startTime(),
                TableDescriptions.seconds(context.clock().millis()),
                manifest,
                d.tableArn(),
                d.tableId(),
                d.exportTime(),
                d.clientToken(),
                d.s3Bucket(),
                d.s3BucketOwner(),
                d.s3Prefix(),
                d.s3SseAlgorithm(),
                d.s3SseKmsKeyId(),
                failureCode,
                failureMessage,
                d.exportFormat(),
                done ? bytes : null,
                done ? items : null,
                d.exportType());
    }
}
