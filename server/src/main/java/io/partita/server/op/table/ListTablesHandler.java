package io.partita.server.op.table;

import io.partita.protocol.message.ListTablesInput;
import io.partita.protocol.message.ListTablesOutput;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.op.TableNames;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import java.util.ArrayList;
import java.util.List;

/** ListTables: names in ascending order, pages of {@code Limit} (1..100, default 100). */
public final class ListTablesHandler implements OperationHandler<ListTablesInput, ListTablesOutput> {
    private static final int MAX_LIMIT = 100;
    private final StorageEngine storage;
    /** The tables in groups of their own, in a cluster with a group per table; null everywhere else. */
    private final TablePlacement placement;

    public ListTablesHandler(StorageEngine storage, TablePlacement placement) {
        this.storage = storage;
        this.placement = placement;
    }

    @Override
    public Class<ListTablesInput> inputType() {
        return ListTablesInput.class;
    }

    /** Bounded: names from memory (in a cluster with a group per table, it waits for the cluster's records). */
    @Override
    public boolean boundedWork() {
        return placement == null;
    }

    @Override
    public ListTablesOutput handle(RequestContext context, ListTablesInput in) {
        new ConstraintSet()
                .length("exclusiveStartTableName", in.exclusiveStartTableName(), 3, 255)
                .pattern("exclusiveStartTableName", in.exclusiveStartTableName(), TableNames.NAME)
                .atLeast("limit", in.limit(), 1)
                .atMost("limit", in.limit(), MAX_LIMIT)
                .check();
        int limit = in.limit() == null ? MAX_LIMIT : in.limit().intValue();
        List<String> page = new ArrayList<>();
        boolean more = false;
        java.util.Collection<String> names = storage.tables().names();
        if (placement != null) {
            java.util.SortedSet<String> all = new java.util.TreeSet<>(names);
            all.addAll(placement.names(context.accountId()));
            names = all;
        }
        for (String name : names) {
            if (in.exclusiveStartTableName() != null && name.compareTo(in.exclusiveStartTableName()) <= 0) {
                continue;
            }
            if (page.size() == limit) {
                more = true;
                break;
            }
            page.add(name);
        }
        return new ListTablesOutput(page, more ? page.get(page.size() - 1) : null);
    }
}
