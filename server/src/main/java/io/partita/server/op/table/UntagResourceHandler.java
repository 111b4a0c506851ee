package io.partita.server.op.table;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.message.UntagResourceInput;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.route.NoContent;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import java.util.LinkedHashMap;
import java.util.Map;

/** UntagResource: removes tag keys from a table; keys it does not have are ignored. */
public final class UntagResourceHandler implements OperationHandler<UntagResourceInput, NoContent> {
    private final StorageEngine storage;

    public UntagResourceHandler(StorageEngine storage) {
        this.storage = storage;
    }

    @Override
    public Class<UntagResourceInput> inputType() {
        return UntagResourceInput.class;
    }

    @Override
    public NoContent handle(RequestContext context, UntagResourceInput in) {
        new ConstraintSet()
                .notNull("resourceArn", in.resourceArn())
                .length("resourceArn", in.resourceArn(), 1, 1283)
                .notNull("tagKeys", in.tagKeys())
                .check();
        if (in.tagKeys().isEmpty()) {
            throw ApiException.validation("Atleast one Tag Key needs to be provided as Input.");
        }
        in.tagKeys().forEach(Tags::checkKey);
        String name = TagTargets.tableOf(context, in.resourceArn());
        TagTargets.require(storage, name, in.resourceArn());
        storage.tables().update(name, m -> {
            io.partita.storage.table.HashRange.requireNotMoving(m);
            Map<String, String> tags = new LinkedHashMap<>(m.tags());
            in.tagKeys().forEach(tags::remove);
            return m.withTags(tags);
        });
        return NoContent.INSTANCE;
    }
}
