package io.partita.server.op.stream;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.message.ListStreamsInput;
import io.partita.protocol.message.ListStreamsOutput;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.op.TableNames;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.stream.StreamDefinition;
import io.partita.storage.table.TableCatalog.Table;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/** ListStreams: the streams of one table or of all, enabled or disabled and still readable, a page at a time. */
public final class ListStreamsHandler implements OperationHandler<ListStreamsInput, ListStreamsOutput> {
    static final long MAX_LIMIT = 100;

    private final StorageEngine storage;

    public ListStreamsHandler(StorageEngine storage) {
        this.storage = storage;
    }

    @Override
    public Class<ListStreamsInput> inputType() {
        return ListStreamsInput.class;
    }

    @Override
    public ListStreamsOutput handle(RequestContext context, ListStreamsInput in) {
        ConstraintSet c = new ConstraintSet();
        if (in.tableName() != null) {
            TableNames.check(c, in.tableName());
        }
        c.atLeast("limit", in.limit(), 1)
                .atMost("limit", in.limit(), MAX_LIMIT)
                .length("exclusiveStartStreamArn", in.exclusiveStartStreamArn(), 37, 1024);
        c.check();
        Collection<Table> tables;
        if (in.tableName() != null) {
            String name = TableNames.resolve(context, in.tableName());
            Table t = storage.tables().find(name);
            if (t == null) {
                throw ApiException.resourceNotFound("Requested resource not found: Table: " + name + " not found");
            }
            tables = List.of(t);
        } else {
            tables = storage.tables().snapshot().values();
        }
        List<ListStreamsOutput.Stream> all = new ArrayList<>();
        for (Table t : tables) {
            storage.streams().expire(t);
            for (StreamDefinition d : t.metadata().streams()) {
                all.add(new ListStreamsOutput.Stream(
                        StreamLookup.arn(context, t, d), t.metadata().name(), d.label()));
            }
        }
        if (in.exclusiveStartStreamArn() != null && StreamTokens.parseStreamArn(in.exclusiveStartStreamArn()) == null) {
            throw ApiException.validation("Invalid ExclusiveStartStreamArn");
        }
        Page<ListStreamsOutput.Stream> page =
                Page.of(all, ListStreamsOutput.Stream::streamArn, in.exclusiveStartStreamArn(), in.limit(), MAX_LIMIT);
        return new ListStreamsOutput(page.items(), page.lastEvaluated());
    }
}
