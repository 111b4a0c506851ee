package io.partita.server.op.table;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.message.TagResourceInput;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.route.NoContent;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import java.util.LinkedHashMap;
import java.util.Map;

/** TagResource: adds tags to a table, replacing the values of keys it already has. */
public final class TagResourceHandler implements OperationHandler<TagResourceInput, NoContent> {
    private final StorageEngine storage;

    public TagResourceHandler(StorageEngine storage) {
        this.storage = storage;
    }

    @Override
    public Class<TagResourceInput> inputType() {
        return TagResourceInput.class;
    }

    @Override
    public NoContent handle(RequestContext context, TagResourceInput in) {
        ConstraintSet c = new ConstraintSet()
                .notNull("resourceArn", in.resourceArn())
                .length("resourceArn", in.resourceArn(), 1, 1283)
                .notNull("tags", in.tags());
        c.check();
        if (in.tags().isEmpty()) {
            // Sic: DynamoDB's words, as live captures of it record them.
            throw ApiException.validation("Atleast one Tag needs to be provided as Input.");
        }
        Tags.check(in.tags());
        String name = TagTargets.tableOf(context, in.resourceArn());
        TagTargets.require(storage, name, in.resourceArn());
        storage.tables().update(name, m -> {
            io.partita.storage.table.HashRange.requireNotMoving(m);
            Map<String, String> tags = new LinkedHashMap<>(m.tags());
            tags.putAll(Tags.toMap(in.tags()));
            // Counted merged with the table's tags, inside the update: two requests cannot pass 50 together.
            Tags.checkCount(tags);
            return m.withTags(tags);
        });
        return NoContent.INSTANCE;
    }
}
