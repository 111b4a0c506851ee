package io.partita.server.op.table;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.message.DescribeImportInput;
import io.partita.protocol.message.ImportTableOutput;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import java.util.regex.Pattern;

/** DescribeImport: "Invalid Import ARN" when the ARN is not an import's, ImportNotFoundException when there is none. */
public final class DescribeImportHandler implements OperationHandler<DescribeImportInput, ImportTableOutput> {
    private static final Pattern ARN = Pattern.compile(
            "arn:aws[a-z-]*:dynamodb:[a-z0-9-]+:\\d{12}:table/[a-zA-Z0-9_.-]{3,255}/import/\\d{14}-[0-9a-f]{8}");

    private final S3Transfers transfers;

    DescribeImportHandler(S3Transfers transfers) {
        this.transfers = transfers;
    }

    @Override
    public Class<DescribeImportInput> inputType() {
        return DescribeImportInput.class;
    }

    @Override
    public boolean boundedWork() {
        return true;
    }

    @Override
    public ImportTableOutput handle(RequestContext context, DescribeImportInput in) {
        ConstraintSet c = new ConstraintSet();
        c.notNull("importArn", in.importArn()).length("importArn", in.importArn(), 37, 1024);
        c.check();
        if (!ARN.matcher(in.importArn()).matches()) {
            throw ApiException.validation("Invalid Import ARN");
        }
        S3Transfers.ImportRecord r = transfers.imports.get(in.importArn());
        if (r == null) {
            // DynamoDB's wording of this one has not been published; this follows its export's.
            throw new ApiException(ErrorCode.IMPORT_NOT_FOUND, "Import not found: " + in.importArn());
        }
        return new ImportTableOutput(r.description());
    }
}
