package io.partita.server.op.table;

import io.partita.protocol.message.ListTagsOfResourceInput;
import io.partita.protocol.message.ListTagsOfResourceOutput;
import io.partita.protocol.message.Tag;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import java.util.ArrayList;
import java.util.List;

/** ListTagsOfResource: a table's tags in the order they were added (one page; a table has at most 50). */
public final class ListTagsOfResourceHandler
        implements OperationHandler<ListTagsOfResourceInput, ListTagsOfResourceOutput> {
    private final StorageEngine storage;

    public ListTagsOfResourceHandler(StorageEngine storage) {
        this.storage = storage;
    }

    @Override
    public Class<ListTagsOfResourceInput> inputType() {
        return ListTagsOfResourceInput.class;
    }

    @Override
    public ListTagsOfResourceOutput handle(RequestContext context, ListTagsOfResourceInput in) {
        new ConstraintSet()
                .notNull("resourceArn", in.resourceArn())
                .length("resourceArn", in.resourceArn(), 1, 1283)
                .check();
        String name = TagTargets.tableOf(context, in.resourceArn());
        var table = TagTargets.require(storage, name, in.resourceArn());
        List<Tag> tags = new ArrayList<>();
        table.metadata().tags().forEach((k, v) -> tags.add(new Tag(k, v)));
        return new ListTagsOfResourceOutput(tags, null);
    }
}
