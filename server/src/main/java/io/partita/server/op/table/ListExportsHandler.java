package io.partita.server.op.table;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.message.ExportDescription;
import io.partita.protocol.message.ListExportsInput;
import io.partita.protocol.message.ListExportsOutput;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import java.util.ArrayList;
import java.util.List;

/** ListExports: newest first, of one table or all, {@code MaxResults} (1 to 25, 10 by default) a page. */
public final class ListExportsHandler implements OperationHandler<ListExportsInput, ListExportsOutput> {
    private final S3Transfers transfers;

    ListExportsHandler(S3Transfers transfers) {
        this.transfers = transfers;
    }

    @Override
    public Class<ListExportsInput> inputType() {
        return ListExportsInput.class;
    }

    @Override
    public boolean boundedWork() {
        return true;
    }

    @Override
    public ListExportsOutput handle(RequestContext context, ListExportsInput in) {
        ConstraintSet c = new ConstraintSet();
        c.length("tableArn", in.tableArn(), 1, 1024);
        Long max = in.maxResults() == null ? null : (long) in.maxResults();
        c.atLeast("maxResults", max, 1).atMost("maxResults", max, 25);
        c.check();
        List<ExportDescription> all = S3Transfers.newestFirst(
                transfers.exports.values().stream()
                        .map(S3Transfers.ExportRecord::description)
                        .toList(),
                ExportDescription::startTime);
        all.removeIf(d -> in.tableArn() != null && !d.tableArn().equals(in.tableArn()));
        int from = Paging.from(
                in.nextToken(), all.stream().map(ExportDescription::exportArn).toList());
        int size = in.maxResults() == null ? 10 : in.maxResults();
        List<ListExportsOutput.ExportSummary> page = new ArrayList<>();
        for (int i = from; i < Math.min(all.size(), from + size); i++) {
            ExportDescription d = all.get(i);
            page.add(new ListExportsOutput.ExportSummary(d.exportArn(), d.exportStatus(), d.exportType()));
        }
        String next =
                from + size < all.size() ? Paging.token(all.get(from + size).exportArn()) : null;
        return new ListExportsOutput(page, next);
    }

    /** A page's NextToken: the ARN the next page starts at, opaque to the caller. */
    public static final class Paging {
        private Paging() {}

        public static String token(String arn) {
            return java.util.Base64.getUrlEncoder()
                    .withoutPadding()
                    .encodeToString(arn.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }

        /**
         * Where the page {@code token} names starts among {@code arns}: 0 for none.
         *
         * @throws ApiException a token of no ARN in {@code arns}
         */
        public static int from(String token, List<String> arns) {
            if (token == null) {
                return 0;
            }
            String arn;
            try {
                arn = new String(
                        java.util.Base64.getUrlDecoder().decode(token), java.nio.charset.StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                throw ApiException.validation("Invalid Request: Provided nextToken is invalid: " + token);
            }
            int at = arns.indexOf(arn);
            if (at < 0) {
                throw ApiException.validation("Invalid Request: Provided nextToken is invalid: " + token);
            }
            return at;
        }
    }
}
