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

    public ListTablesHandler(StorageEngine storage) {
        this.storage = storage;
    }

    @Override
    public Class<ListTablesInput> inputType() {
        return ListTablesInput.class;
    }

    /** Bounded: names from memory. */
    @Override
    public boolean boundedWork() {
        return true;
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
        for (String name : storage.tables().names()) {
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
