package io.partita.server.op.table;

import io.partita.protocol.error.ApiException;
import io.partita.server.op.item.ItemRequests;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.index.LiveIndex;
import io.partita.storage.table.TableCatalog.Table;

/**
 * Partita's own {@code Partita.IndexLag}: the lag this store injects before global secondary index {@code IndexName}
 * of table {@code TableName} applies a change ({@code LagMillis}; a negative one gives the index back the default), as
 * {@code POST /admin/indexes/lag?table=T&index=I&millis=MS} sets it on a single node. The node a client's such request
 * reached sends it to every group of a table cut by hash ranges, each of which holds the rows of its own items
 * (docs/CLUSTER.md, "Global secondary indexes").
 */
public final class IndexLagHandler implements OperationHandler<IndexLagHandler.Input, IndexLagHandler.Output> {
    /** The table, its index, and the lag to inject. */
    public record Input(String tableName, String indexName, Long lagMillis) {}

    /** The lag the index now has. */
    public record Output(long lagMillis) {}

    private final StorageEngine storage;

    public IndexLagHandler(StorageEngine storage) {
        this.storage = storage;
    }

    @Override
    public Class<Input> inputType() {
        return Input.class;
    }

    @Override
    public Output handle(RequestContext context, Input in) {
        if (in.lagMillis() == null) {
            throw ApiException.validation("Partita.IndexLag needs LagMillis");
        }
        Table table = ItemRequests.table(context, storage, in.tableName());
        LiveIndex index = in.indexName() == null ? null : table.indexes().find(in.indexName());
        if (index == null || !index.global()) {
            throw ApiException.resourceNotFound(
                    "no global secondary index " + in.indexName() + " of table " + in.tableName());
        }
        index.lagMillis(in.lagMillis());
        return new Output(in.lagMillis());
    }
}
