package io.partita.server.op.table;

import io.partita.server.route.OperationRegistry;
import io.partita.storage.StorageEngine;

/** Registers the export and import operations of one account, over one {@link S3Transfers}. */
public final class TransferOperations {
    private TransferOperations() {}

    public static void register(OperationRegistry registry, StorageEngine storage, TablePlacement placement) {
        S3Transfers transfers = new S3Transfers(
                storage.s3Root(),
                storage,
                storage.dataDir() == null ? null : storage.dataDir().resolve("transfers"));
        registry.register("ExportTableToPointInTime", new ExportTableToPointInTimeHandler(storage, transfers))
                .register("DescribeExport", new DescribeExportHandler(transfers))
                .register("ListExports", new ListExportsHandler(transfers))
                .register("ImportTable", new ImportTableHandler(storage, transfers, placement))
                .register("DescribeImport", new DescribeImportHandler(transfers))
                .register("ListImports", new ListImportsHandler(transfers));
    }
}
