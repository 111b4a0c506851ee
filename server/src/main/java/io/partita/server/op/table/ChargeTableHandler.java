package io.partita.server.op.table;

import io.partita.protocol.error.ApiException;
import io.partita.server.op.item.ItemRequests;
import io.partita.server.route.OperationHandler;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.index.LiveIndex;
import io.partita.storage.table.TableCatalog.Table;
import java.util.Map;

/**
 * Partita's own {@code Partita.ChargeTable}: what another group of a table cut by hash ranges consumed since it last
 * said, in half units ({@code ReadHalfUnits}, {@code WriteHalfUnits}, and each global secondary index's under {@code
 * Indexes}: an eventually consistent read may take half a unit, counted exactly), charged to this group's budgets of
 * the table as a whole and of each index, which are the whole table's and index's (docs/CLUSTER.md, "Capacity over
 * ranges"). Not this group's consumption: its metrics leave it out. Only a store
 * holding a range of the table takes it: a single node, or a table kept whole, refuses it. Like Partita's other
 * internal operations, a client with the account's key may send it too, and so throttle its own table, or raise an
 * on-demand table's rate by peaks that never were (at most {@code TableThroughput.MAX_PEAKS_ELSEWHERE} of them).
 */
public final class ChargeTableHandler implements OperationHandler<ChargeTableHandler.Input, ChargeTableHandler.Output> {
    /** The most half units one report may carry: far above any table's quota over the seconds between two reports. */
    static final long MAX_HALF_UNITS = 1_000_000_000_000L;

    /**
     * The table, what another group ({@code From}, its id) consumed of it since its last report, the highest
     * one-second consumption of its own it has seen (the peaks an on-demand table's rate follows), and the same of each
     * global secondary index.
     */
    public record Input(
            String tableName,
            String from,
            Long readHalfUnits,
            Long writeHalfUnits,
            Long readPeakHalfUnits,
            Long writePeakHalfUnits,
            Map<String, Units> indexes) {}

    /** What was consumed of one index, and its peaks. */
    public record Units(Long readHalfUnits, Long writeHalfUnits, Long readPeakHalfUnits, Long writePeakHalfUnits) {}

    /** The units charged. */
    public record Output(double readUnits, double writeUnits) {}

    private final StorageEngine storage;

    public ChargeTableHandler(StorageEngine storage) {
        this.storage = storage;
    }

    @Override
    public Class<Input> inputType() {
        return Input.class;
    }

    @Override
    public Output handle(RequestContext context, Input in) {
        Table table = ItemRequests.table(context, storage, in.tableName());
        if (table.metadata().hashRange() == null) {
            throw ApiException.validation("Partita.ChargeTable is for the groups of a table cut by hash ranges over"
                    + " a cluster's groups; table " + in.tableName() + " is whole here");
        }
        double read = units("ReadHalfUnits", in.readHalfUnits());
        double write = units("WriteHalfUnits", in.writeHalfUnits());
        double readPeak = units("ReadPeakHalfUnits", in.readPeakHalfUnits());
        double writePeak = units("WritePeakHalfUnits", in.writePeakHalfUnits());
        if (in.from() != null && (in.from().isEmpty() || in.from().length() > 64)) {
            throw ApiException.validation("Partita.ChargeTable: From must name a group in 1 to 64 characters");
        }
        Map<String, Units> indexes = in.indexes() == null ? Map.of() : in.indexes();
        double[][] perIndex = new double[indexes.size()][];
        LiveIndex[] found = new LiveIndex[indexes.size()];
        int i = 0;
        // Every member checked before anything is charged: a bad request changes nothing.
        for (Map.Entry<String, Units> e : indexes.entrySet()) {
            LiveIndex index = table.indexes().find(e.getKey());
            Units u = e.getValue();
            if (u == null) {
                throw ApiException.validation("Partita.ChargeTable: index " + e.getKey() + " names no units");
            }
            perIndex[i] = new double[] {
                units("ReadHalfUnits", u.readHalfUnits()),
                units("WriteHalfUnits", u.writeHalfUnits()),
                units("ReadPeakHalfUnits", u.readPeakHalfUnits()),
                units("WritePeakHalfUnits", u.writePeakHalfUnits())
            };
            // An index another group has and this one not (yet, or no more): nothing of it to charge here.
            found[i++] = index != null && index.global() ? index : null;
        }
        table.partitions().chargeElsewhere(read, write, in.from(), readPeak, writePeak);
        for (int k = 0; k < found.length; k++) {
            if (found[k] != null && found[k].partitions() != null) {
                double[] u = perIndex[k];
                found[k].partitions().chargeElsewhere(u[0], u[1], in.from(), u[2], u[3]);
            }
        }
        return new Output(read, write);
    }

    /** The units {@code halfUnits} of member {@code member} are. */
    private static double units(String member, Long halfUnits) {
        long h = halfUnits == null ? 0 : halfUnits;
        if (h < 0 || h > MAX_HALF_UNITS) {
            throw ApiException.validation("Partita.ChargeTable: " + member + " must be a whole number of half units"
                    + " from 0 to " + MAX_HALF_UNITS + ": " + h);
        }
        return h / 2.0;
    }
}
