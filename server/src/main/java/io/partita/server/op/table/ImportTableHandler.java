package io.partita.server.op.table;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.message.CreateTableInput;
import io.partita.protocol.message.ImportTableDescription;
import io.partita.protocol.message.ImportTableInput;
import io.partita.protocol.message.ImportTableOutput;
import io.partita.protocol.model.AttributeValue;
import io.partita.protocol.model.ItemSize;
import io.partita.protocol.model.KeySchema;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.op.TableNames;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.item.ConditionalWrite;
import io.partita.storage.item.WriteDecision;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.write.ItemWrite;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * ImportTable: a new table (as CreateTable makes it, with its checks and errors) filled from every file under the
 * bucket's key prefix, in DynamoDB JSON ({@code {"Item": …}} a line, as an export writes it), gzipped or not as {@code
 * InputCompressionType} says. Imported items are not charged, as DynamoDB's are not. A line that is not a valid item
 * of the table counts in {@code ErrorCount}, and the import ends {@code FAILED} with {@code ItemValidationError}, the
 * valid items imported, as DynamoDB's does; a bucket that does not exist ends it {@code FAILED} with {@code
 * S3NoSuchBucket}, with no table made. The import runs before the answer ({@code IN_PROGRESS}, as DynamoDB's);
 * DescribeImport gives the outcome. Not yet: {@code ION}, {@code CSV} and {@code ZSTD}, refused as such.
 */
public final class ImportTableHandler implements OperationHandler<ImportTableInput, ImportTableOutput> {
    private final StorageEngine storage;
    private final S3Transfers transfers;
    private final CreateTableHandler create;

    private final TablePlacement placement;

    ImportTableHandler(StorageEngine storage, S3Transfers transfers, TablePlacement placement) {
        this.storage = storage;
        this.transfers = transfers;
        this.placement = placement;
        this.create = new CreateTableHandler(storage, placement);
    }

    @Override
    public Class<ImportTableInput> inputType() {
        return ImportTableInput.class;
    }

    @Override
    public ImportTableOutput handle(RequestContext context, ImportTableInput in) {
        ConstraintSet c = new ConstraintSet();
        c.notNull("s3BucketSource", in.s3BucketSource());
        if (in.s3BucketSource() != null) {
            c.notNull("s3BucketSource.s3Bucket", in.s3BucketSource().s3Bucket())
                    .length("s3BucketSource.s3Bucket", in.s3BucketSource().s3Bucket(), 0, 255)
                    .pattern(
                            "s3BucketSource.s3Bucket",
                            in.s3BucketSource().s3Bucket(),
                            ExportTableToPointInTimeHandler.BUCKET)
                    .length("s3BucketSource.s3KeyPrefix", in.s3BucketSource().s3KeyPrefix(), 0, 1024);
        }
        c.notNull("inputFormat", in.inputFormat())
                .enumValue("inputFormat", in.inputFormat(), List.of("DYNAMODB_JSON", "ION", "CSV"));
        c.enumValue("inputCompressionType", in.inputCompressionType(), List.of("GZIP", "ZSTD", "NONE"));
        c.notNull("tableCreationParameters", in.tableCreationParameters());
        c.length("clientToken", in.clientToken(), 1, 1024);
        c.check();
        if (in.inputFormatOptions() != null && !in.inputFormatOptions().isNull() && !"CSV".equals(in.inputFormat())) {
            throw ApiException.validation("Invalid Request: Unsupported InputFormatOptions for the given input format: "
                    + in.inputFormat() + ".");
        }
        if (!"DYNAMODB_JSON".equals(in.inputFormat())) {
            throw ApiException.validation(
                    "Partita does not implement imports in " + in.inputFormat() + " yet: use DYNAMODB_JSON");
        }
        if ("ZSTD".equals(in.inputCompressionType())) {
            throw ApiException.validation("Partita does not implement ZSTD imports yet: use GZIP or NONE");
        }
        if (in.clientToken() != null) {
            String earlier = transfers.importTokens.get(in.clientToken());
            if (earlier != null) {
                S3Transfers.ImportRecord r = transfers.imports.get(earlier);
                if (!Objects.equals(r.request().tableCreationParameters(), in.tableCreationParameters())) {
                    throw new ApiException(
                            ErrorCode.IMPORT_CONFLICT,
                            "Import conflict: Duplicate request detected with conflicting parameters");
                }
                return new ImportTableOutput(r.description());
            }
        }
        var p = in.tableCreationParameters();
        String name = p.tableName();
        if (name != null && storage.tables().find(name) != null) {
            throw ApiException.resourceInUse("Table already exists: " + name);
        }
        if (name != null) {
            CreateTableHandler.placeElsewhere(placement, storage, context, name, TablePlacement.Layout.WHOLE);
        }
        long now = context.clock().millis();
        String id = S3Transfers.id(now);
        String tableArn = TableNames.arn(context, name);
        String token = in.clientToken() != null
                ? in.clientToken()
                : java.util.UUID.randomUUID().toString();
        String compression = in.inputCompressionType() != null ? in.inputCompressionType() : "NONE";
        ImportTableDescription started = describe(
                tableArn + "/import/" + id,
                "IN_PROGRESS",
                tableArn,
                null,
                token,
                in,
                compression,
                context,
                now,
                null,
                new long[4],
                null,
                null);
        String bucket = in.s3BucketSource().s3Bucket();
        ImportTableDescription finished;
        if (!Files.isDirectory(transfers.bucket(bucket))) {
            finished = describe(
                    started.importArn(),
                    "FAILED",
                    tableArn,
                    null,
                    token,
                    in,
                    compression,
                    context,
                    now,
                    now,
                    new long[4],
                    "S3NoSuchBucket",
                    "The specified bucket does not exist (Service: Amazon S3; Status"
                            + " Code: 404; Error Code: NoSuchBucket)");
        } else {
            create.handle(
                    context,
                    new CreateTableInput(
                            name,
                            p.attributeDefinitions(),
                            p.keySchema(),
                            p.billingMode(),
                            p.provisionedThroughput(),
                            null,
                            null,
                            null,
                            null,
                            p.globalSecondaryIndexes(),
                            null,
                            p.sseSpecification(),
                            p.onDemandThroughput(),
                            null,
                            null));
            Table t = storage.tables().find(name);
            long[] counts = copy(t, bucket, in.s3BucketSource().s3KeyPrefix(), "GZIP".equals(compression));
            boolean failed = counts[3] > 0;
            finished = describe(
                    started.importArn(),
                    failed ? "FAILED" : "COMPLETED",
                    tableArn,
                    t.metadata().id(),
                    token,
                    in,
                    compression,
                    context,
                    now,
                    context.clock().millis(),
                    counts,
                    failed ? "ItemValidationError" : null,
                    failed
                            ? "Some of the items failed validation checks and were not imported. Please check"
                                    + " CloudWatch error logs for more details."
                            : null);
        }
        transfers.remember(new S3Transfers.ImportRecord(finished, in), true);
        return new ImportTableOutput(started);
    }

    /** Reads every object under the prefix into {@code t}: {processed bytes, processed items, imported, errors}. */
    private long[] copy(Table t, String bucket, String prefix, boolean gzip) {
        long[] counts = new long[4];
        KeySchema schema = t.metadata().keySchema();
        try {
            for (Path file : transfers.objects(bucket, prefix)) {
                counts[0] += Files.size(file);
                S3Transfers.lines(file, gzip, line -> {
                    counts[1]++;
                    Map<String, AttributeValue> item = S3Transfers.item(line);
                    if (item == null || !valid(schema, item)) {
                        counts[3]++;
                        return;
                    }
                    storage.writes()
                            .write(ItemWrite.restore(
                                    t, schema.keyOfItem(item), ConditionalWrite.blind(new WriteDecision.Put(item))));
                    counts[2]++;
                });
            }
        } catch (IOException | java.io.UncheckedIOException e) {
            // A file that cannot be read (not gzip when GZIP was said): the rest of it counts as one error.
            counts[3]++;
        }
        return counts;
    }

    /** An item of the table: its key attributes present with the key schema's types, and within 400 KB. */
    private static boolean valid(KeySchema schema, Map<String, AttributeValue> item) {
        for (KeySchema.KeyAttribute k : schema.attributes()) {
            AttributeValue v = item.get(k.name());
            if (v == null || !k.type().matches(v)) {
                return false;
            }
        }
        return ItemSize.of(item) <= ItemSize.MAX_ITEM_BYTES;
    }

    private static ImportTableDescription describe(
            String arn,
            String status,
            String tableArn,
            String tableId,
            String token,
            ImportTableInput in,
            String compression,
            RequestContext context,
            long start,
            Long end,
            long[] counts,
            String failureCode,
            String failureMessage) {
        boolean over = end != null;
        return new ImportTableDescription(
                arn,
                status,
                tableArn,
                tableId,
                token,
                in.s3BucketSource(),
                over ? counts[3] : 0L,
                "arn:aws:logs:" + context.region() + ":" + context.accountId() + ":log-group:/aws-dynamodb/imports:*",
                in.inputFormat(),
                in.inputFormatOptions(),
                compression,
                in.tableCreationParameters(),
                TableDescriptions.seconds(start),
                over ? TableDescriptions.seconds(end) : null,
                over ? counts[0] : 0L,
                over ? counts[1] : 0L,
                over ? counts[2] : 0L,
                failureCode,
                failureMessage);
    }
}
