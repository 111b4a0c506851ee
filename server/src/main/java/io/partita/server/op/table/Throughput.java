package io.partita.server.op.table;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.message.ProvisionedThroughput;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.storage.table.TableMetadata;

/** A table's billing mode and provisioned capacity, with DynamoDB's rules for setting them. */
record Throughput(String billingMode, long readCapacityUnits, long writeCapacityUnits) {
    boolean onDemand() {
        return TableMetadata.PAY_PER_REQUEST.equals(billingMode);
    }

    static void constrain(ConstraintSet c, ProvisionedThroughput t) {
        if (t != null) {
            c.notNull("provisionedThroughput.writeCapacityUnits", t.writeCapacityUnits())
                    .atLeast("provisionedThroughput.writeCapacityUnits", t.writeCapacityUnits(), 1)
                    .notNull("provisionedThroughput.readCapacityUnits", t.readCapacityUnits())
                    .atLeast("provisionedThroughput.readCapacityUnits", t.readCapacityUnits(), 1);
        }
    }

    static Throughput forCreate(String billingMode, ProvisionedThroughput t) {
        if (TableMetadata.PAY_PER_REQUEST.equals(billingMode)) {
            if (t != null) {
                throw ApiException.invalidParameter("Neither ReadCapacityUnits nor WriteCapacityUnits can be"
                        + " specified when BillingMode is PAY_PER_REQUEST");
            }
            return new Throughput(TableMetadata.PAY_PER_REQUEST, 0, 0);
        }
        if (t == null) {
            throw ApiException.validation("No provisioned throughput specified for the table");
        }
        return new Throughput(TableMetadata.PROVISIONED, t.readCapacityUnits(), t.writeCapacityUnits());
    }
}
