package io.partita.server.op.table;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.message.BackupDescription;
import io.partita.protocol.message.BackupDetails;
import io.partita.protocol.message.ListBackupsOutput;
import io.partita.protocol.message.ProvisionedThroughput;
import io.partita.protocol.message.StreamSpecification;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.op.TableNames;
import io.partita.server.route.RequestContext;
import io.partita.storage.backup.TableBackups.Backup;
import io.partita.storage.index.IndexDefinition;
import io.partita.storage.table.TableMetadata;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the on-demand backup operations share: a backup's ARN ({@code <table ARN>/backup/<id>}, as DynamoDB's), and
 * its descriptions. A USER backup never expires ({@code BackupExpiryDateTime} absent); Partita takes no SYSTEM
 * backups.
 */
final class Backups {
    private Backups() {}

    static final String AVAILABLE = "AVAILABLE";
    static final String DELETED = "DELETED";
    static final String USER = "USER";

    private static final Pattern ARN = Pattern.compile(
            "arn:aws[a-z-]*:dynamodb:([a-z0-9-]+):(\\d{12}):table/([a-zA-Z0-9_.-]{3,255})/backup/(\\d{14}-[0-9a-f]{8})");

    static String arn(RequestContext context, Backup b) {
        return TableNames.arn(context, b.source().name()) + "/backup/" + b.id();
    }

    /** BackupArn's constraints: 37 to 1,024 characters. */
    static void checkArn(ConstraintSet c, String arn) {
        c.notNull("backupArn", arn).length("backupArn", arn, 37, 1024);
    }

    /**
     * The backup {@code arn} names: "Invalid Backup ARN" when it is not one, BackupNotFoundException "Backup not
     * found: ARN" when it names none of this account's (observed answers, docs of other emulators' AWS checks).
     */
    static Backup find(RequestContext context, io.partita.storage.StorageEngine storage, String arn) {
        Matcher m = ARN.matcher(arn);
        if (!m.matches()) {
            throw ApiException.validation("Invalid Backup ARN");
        }
        Backup b = storage.backups().find(m.group(4));
        if (b == null || !arn(context, b).equals(arn)) {
            throw new ApiException(ErrorCode.BACKUP_NOT_FOUND, "Backup not found: " + arn);
        }
        return b;
    }

    /** The backup a Describe or Delete names, after the ARN's constraints. */
    static Backup require(RequestContext context, io.partita.storage.StorageEngine storage, String arn) {
        ConstraintSet c = new ConstraintSet();
        checkArn(c, arn);
        c.check();
        return find(context, storage, arn);
    }

    static BackupDetails details(RequestContext context, Backup b, String status) {
        return new BackupDetails(
                arn(context, b),
                b.name(),
                b.sizeBytes(),
                status,
                USER,
                TableDescriptions.seconds(b.creationMillis()),
                null);
    }

    static ListBackupsOutput.BackupSummary summary(RequestContext context, Backup b) {
        return new ListBackupsOutput.BackupSummary(
                b.source().name(),
                b.source().id(),
                TableNames.arn(context, b.source().name()),
                arn(context, b),
                b.name(),
                TableDescriptions.seconds(b.creationMillis()),
                null,
                AVAILABLE,
                USER,
                b.sizeBytes());
    }

    /** DescribeBackup's and DeleteBackup's answer: the backup and what it recorded of its table. */
    static BackupDescription describe(RequestContext context, Backup b, String status) {
        TableMetadata m = b.source();
        boolean onDemand = m.onDemand();
        var source = new BackupDescription.SourceTableDetails(
                m.name(),
                m.id(),
                TableNames.arn(context, m.name()),
                b.sizeBytes(),
                TableDescriptions.keySchema(m.keySchema()),
                TableDescriptions.seconds(m.creationMillis()),
                // An on-demand source records its capacity as 0 and 0.
                new ProvisionedThroughput(
                        onDemand ? 0L : m.readCapacityUnits(), onDemand ? 0L : m.writeCapacityUnits()),
                TableDescriptions.onDemandThroughput(m.maxReadRequestUnits(), m.maxWriteRequestUnits()),
                b.itemCount(),
                m.billingMode());
        List<BackupDescription.LocalSecondaryIndexInfo> locals = new ArrayList<>();
        List<BackupDescription.GlobalSecondaryIndexInfo> globals = new ArrayList<>();
        for (IndexDefinition d : m.indexes()) {
            if (d.global()) {
                globals.add(new BackupDescription.GlobalSecondaryIndexInfo(
                        d.name(),
                        TableDescriptions.keySchema(d),
                        TableDescriptions.projection(d),
                        new ProvisionedThroughput(
                                onDemand ? 0L : d.readCapacityUnits(), onDemand ? 0L : d.writeCapacityUnits()),
                        TableDescriptions.onDemandThroughput(d.maxReadRequestUnits(), d.maxWriteRequestUnits())));
            } else {
                locals.add(new BackupDescription.LocalSecondaryIndexInfo(
                        d.name(), TableDescriptions.keySchema(d), TableDescriptions.projection(d)));
            }
        }
        var stream = m.stream();
        var features = new BackupDescription.SourceTableFeatureDetails(
                locals.isEmpty() ? null : locals,
                globals.isEmpty() ? null : globals,
                stream == null ? null : new StreamSpecification(true, stream.viewType(), null),
                m.ttlEnabled()
                        ? new io.partita.protocol.message.DescribeTimeToLiveOutput.Description(
                                "ENABLED", m.ttl().attributeName())
                        : null,
                SseSpecs.describe(m.sseKmsKeyArn(), "ENABLED"));
        return new BackupDescription(details(context, b, status), source, features);
    }
}
