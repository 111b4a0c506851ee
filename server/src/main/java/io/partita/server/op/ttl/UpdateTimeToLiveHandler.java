package io.partita.server.op.ttl;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.message.TimeToLiveSpecification;
import io.partita.protocol.message.UpdateTimeToLiveInput;
import io.partita.protocol.message.UpdateTimeToLiveOutput;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.op.TableNames;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.ttl.TtlSettings;

/**
 * UpdateTimeToLive: turns a table's TTL on by an attribute, or off. DynamoDB refuses enabling what is enabled,
 * disabling what is disabled, and a second change within an hour of the last ("Time to live": "it can take up to
 * one hour for the change to fully process"); the hour is {@code --ttl-cooldown} here, so tests need not wait.
 */
public final class UpdateTimeToLiveHandler implements OperationHandler<UpdateTimeToLiveInput, UpdateTimeToLiveOutput> {
    private final StorageEngine storage;

    public UpdateTimeToLiveHandler(StorageEngine storage) {
        this.storage = storage;
    }

    @Override
    public Class<UpdateTimeToLiveInput> inputType() {
        return UpdateTimeToLiveInput.class;
    }

    @Override
    public UpdateTimeToLiveOutput handle(RequestContext context, UpdateTimeToLiveInput in) {
        ConstraintSet c = new ConstraintSet();
        TableNames.check(c, in.tableName());
        TimeToLiveSpecification spec = in.timeToLiveSpecification();
        c.notNull("timeToLiveSpecification", spec);
        if (spec != null) {
            c.notNull("timeToLiveSpecification.enabled", spec.enabled())
                    .notNull("timeToLiveSpecification.attributeName", spec.attributeName())
                    .length("timeToLiveSpecification.attributeName", spec.attributeName(), 1, 255);
        }
        c.check();
        String name = TableNames.resolve(context, in.tableName());
        Table t = storage.tables().require(name, "Requested resource not found: Table: " + name + " not found");
        io.partita.storage.table.HashRange.requireNotMoving(t.metadata());
        TtlSettings current = t.metadata().ttl();
        boolean enabled = current != null && current.enabled();
        if (spec.enabled() && enabled) {
            throw current.attributeName().equals(spec.attributeName())
                    ? ApiException.validation("TimeToLive is already enabled")
                    : ApiException.validation("TimeToLive is active on a different AttributeName: current"
                            + " AttributeName is " + current.attributeName());
        }
        if (!spec.enabled() && !enabled) {
            throw ApiException.validation("TimeToLive is already disabled");
        }
        if (!spec.enabled() && !current.attributeName().equals(spec.attributeName())) {
            throw ApiException.validation("TimeToLive is active on a different AttributeName: current AttributeName"
                    + " is " + current.attributeName());
        }
        long now = context.clock().millis();
        if (current != null && now - current.changedMillis() < storage.ttl().cooldownMillis()) {
            throw ApiException.validation("Time to live has been modified multiple times within a fixed interval");
        }
        if (spec.enabled()) {
            storage.ttl().enable(t, spec.attributeName());
        } else {
            storage.ttl().disable(t);
        }
        return new UpdateTimeToLiveOutput(new TimeToLiveSpecification(spec.enabled(), spec.attributeName()));
    }
}
