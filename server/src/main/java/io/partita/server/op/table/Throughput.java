package io.partita.server.op.table;

import com.fasterxml.jackson.databind.JsonNode;
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

    /**
     * One member of {@code OnDemandThroughput}: null when absent; -1 (no maximum) or a positive number of request
     * units ("DynamoDB maximum throughput for on-demand tables").
     */
    static Long onDemandMax(JsonNode onDemandThroughput, String member) {
        if (onDemandThroughput == null || onDemandThroughput.isNull()) {
            return null;
        }
        JsonNode v = onDemandThroughput.get(member);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.canConvertToLong() || (v.asLong() != -1 && v.asLong() < 1)) {
            throw ApiException.invalidParameter(member + " must be -1 or greater than 0");
        }
        return v.asLong();
    }

    /**
     * One member of a table's {@code OnDemandThroughput}: null when absent; at least 1, or on UpdateTable -1 to remove
     * the maximum ("OnDemandThroughput", API reference: "To remove the maximum ... set the value ... to -1"), in
     * DynamoDB's words (answers captured in 2026).
     */
    static Long tableOnDemandMax(JsonNode onDemandThroughput, String member, boolean update) {
        if (onDemandThroughput == null || onDemandThroughput.isNull()) {
            return null;
        }
        if (!onDemandThroughput.isObject()) {
            throw ApiException.serialization("Unexpected value type in payload");
        }
        JsonNode v = onDemandThroughput.get(member);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isIntegralNumber() || !v.canConvertToLong()) {
            throw ApiException.serialization("NUMBER_VALUE cannot be converted to Long");
        }
        long units = v.asLong();
        if (units < 1 && !(update && units == -1)) {
            throw ApiException.invalidParameter(
                    "Requested " + member + " for OnDemandThroughput for table is outside of valid range");
        }
        return units;
    }

    /** A provisioned table has no on-demand maximums (CreateTable's words end with a full stop; UpdateTable's not). */
    static void refuseMaximumsWhenProvisioned(Long maxRead, Long maxWrite, boolean update) {
        String member = maxRead != null ? "MaxReadRequestUnits" : maxWrite != null ? "MaxWriteRequestUnits" : null;
        if (member != null) {
            throw ApiException.invalidParameter(member + " for OnDemandThroughput cannot be specified when "
                    + (update ? "the table BillingMode is PROVISIONED" : "table BillingMode is PROVISIONED."));
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
