package io.partita.server.op.table;

import io.partita.protocol.message.ImportTableDescription;
import io.partita.protocol.message.ListImportsInput;
import io.partita.protocol.message.ListImportsOutput;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import java.util.ArrayList;
import java.util.List;

/** ListImports: newest first, of one table or all, {@code PageSize} (1 to 25, 10 by default) a page. */
public final class ListImportsHandler implements OperationHandler<ListImportsInput, ListImportsOutput> {
    private final S3Transfers transfers;

    ListImportsHandler(S3Transfers transfers) {
        this.transfers = transfers;
    }

    @Override
    public Class<ListImportsInput> inputType() {
        return ListImportsInput.class;
    }

    @Override
    public boolean boundedWork() {
        return true;
    }

    @Override
    public ListImportsOutput handle(RequestContext context, ListImportsInput in) {
        ConstraintSet c = new ConstraintSet();
        c.length("tableArn", in.tableArn(), 1, 1024);
        Long size = in.pageSize() == null ? null : (long) in.pageSize();
        c.atLeast("pageSize", size, 1).atMost("pageSize", size, 25);
        c.check();
        List<ImportTableDescription> all = S3Transfers.newestFirst(
                transfers.imports.values().stream()
                        .map(S3Transfers.ImportRecord::description)
                        .toList(),
                ImportTableDescription::startTime);
        all.removeIf(d -> in.tableArn() != null && !d.tableArn().equals(in.tableArn()));
        int from = ListExportsHandler.Paging.from(
                in.nextToken(),
                all.stream().map(ImportTableDescription::importArn).toList());
        int n = in.pageSize() == null ? 10 : in.pageSize();
        List<ListImportsOutput.ImportSummary> page = new ArrayList<>();
        for (int i = from; i < Math.min(all.size(), from + n); i++) {
            ImportTableDescription d = all.get(i);
            page.add(new ListImportsOutput.ImportSummary(
                    d.importArn(),
                    d.importStatus(),
                    d.tableArn(),
                    d.s3BucketSource(),
                    d.cloudWatchLogGroupArn(),
                    d.inputFormat(),
                    d.startTime(),
                    d.endTime()));
        }
        String next = from + n < all.size()
                ? ListExportsHandler.Paging.token(all.get(from + n).importArn())
                : null;
        return new ListImportsOutput(page, next);
    }
}
