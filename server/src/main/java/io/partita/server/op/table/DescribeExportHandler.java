package io.partita.server.op.table;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.message.DescribeExportInput;
import io.partita.protocol.message.ExportDescriptionOutput;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import java.util.regex.Pattern;

/**
 * DescribeExport: "Invalid Export ARN" when the ARN is not an export's, ExportNotFoundException "Export not found:
 * Export not found: ARN" (the prefix doubled, as observed) when there is none.
 */
public final class DescribeExportHandler implements OperationHandler<DescribeExportInput, ExportDescriptionOutput> {
    private static final Pattern ARN = Pattern.compile(
            "arn:aws[a-z-]*:dynamodb:[a-z0-9-]+:\\d{12}:table/[a-zA-Z0-9_.-]{3,255}/export/\\d{14}-[0-9a-f]{8}");

    private final S3Transfers transfers;

    DescribeExportHandler(S3Transfers transfers) {
        this.transfers = transfers;
    }

    @Override
    public Class<DescribeExportInput> inputType() {
        return DescribeExportInput.class;
    }

    @Override
    public boolean boundedWork() {
        return true;
    }

    @Override
    public ExportDescriptionOutput handle(RequestContext context, DescribeExportInput in) {
        ConstraintSet c = new ConstraintSet();
        c.notNull("exportArn", in.exportArn()).length("exportArn", in.exportArn(), 37, 1024);
        c.check();
        if (!ARN.matcher(in.exportArn()).matches()) {
            throw ApiException.validation("Invalid Export ARN");
        }
        S3Transfers.ExportRecord r = transfers.exports.get(in.exportArn());
        if (r == null) {
            throw new ApiException(ErrorCode.EXPORT_NOT_FOUND, "Export not found: Export not found: " + in.exportArn());
        }
        return new ExportDescriptionOutput(r.description());
    }
}
