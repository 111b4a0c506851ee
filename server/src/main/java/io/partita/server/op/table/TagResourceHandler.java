package io.partita.server.op.table;

import io.partita.protocol.message.TagResourceInput;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.op.TableNames;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import java.util.LinkedHashMap;
import java.util.Map;

/** TagResource: adds tags to a table, replacing the values of keys it already has. */
public final class TagResourceHandler implements OperationHandler<TagResourceInput, Map<String, Object>> {
    private final StorageEngine storage;

    public TagResourceHandler(StorageEngine storage) {
        this.storage = storage;
    }

    @Override
    public Class<TagResourceInput> inputType() {
        return TagResourceInput.class;
    }

    @Override
    public Map<String, Object> handle(RequestContext context, TagResourceInput in) {
        ConstraintSet c = new ConstraintSet()
                .notNull("resourceArn", in.resourceArn())
                .length("resourceArn", in.resourceArn(), 1, 1283)
                .notNull("tags", in.tags());
        Tags.constrain(c, in.tags());
        c.check();
        String name = TableNames.fromResourceArn(in.resourceArn());
        TagTargets.require(storage, name, in.resourceArn());
        storage.tables().update(name, m -> {
            Map<String, String> tags = new LinkedHashMap<>(m.tags());
            tags.putAll(Tags.toMap(in.tags()));
            return m.withTags(tags);
        });
        return Map.of();
    }
}
