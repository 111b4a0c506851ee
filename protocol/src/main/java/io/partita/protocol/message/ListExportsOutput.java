package io.partita.protocol.message;

import java.util.List;

/** DynamoDB's {@code ListExportsOutput}. */
public record ListExportsOutput(List<ExportSummary> exportSummaries, String nextToken) {
    /** DynamoDB's {@code ExportSummary}. */
    public record ExportSummary(String exportArn, String exportStatus, String exportType) {}
}
