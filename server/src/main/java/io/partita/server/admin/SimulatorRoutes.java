package io.partita.server.admin;

import com.fasterxml.jackson.core.JsonGenerator;
import io.partita.server.admin.AdminRoutes.Answer;
import io.partita.server.console.HotKeyPrediction;
import io.partita.server.console.HotKeySimulator;
import java.io.IOException;

/**
 * The console's hot-key simulator ({@link HotKeySimulator}):
 *
 * <ul>
 *   <li>{@code GET /admin/simulator}: the settings, the cumulative counts of writes sent, succeeded, throttled and
 *       failed, the hot key's partition (id, count, the fraction of the hash space it covers) and the prediction:
 *       the share at which that partition must start to throttle;
 *   <li>{@code POST /admin/simulator/start?table=T&wcu=N&offered=U&itemKb=K&share=S}: (re)creates the simulator's
 *       provisioned table {@code T} (default {@code hotkey-sim}) with {@code N} WCU (default 2000) and writes
 *       {@code U} units a second (default 75 % of N) in items of {@code K} KB (default 4), a share {@code S} (0..1,
 *       default 0) of them to one key;
 *   <li>{@code POST /admin/simulator/share?value=S}: moves the hot key's share of the running simulation;
 *   <li>{@code POST /admin/simulator/stop}.
 * </ul>
 */
final class SimulatorRoutes {
    private final HotKeySimulator simulator;

    SimulatorRoutes(HotKeySimulator simulator) {
        this.simulator = simulator;
    }

    Answer get() {
        return view(simulator.status());
    }

    Answer change(String method, String path, String query) {
        if (!method.equals("POST")) {
            return AdminRoutes.error(405, "Method not allowed");
        }
        try {
            switch (path) {
                case "/admin/simulator/start":
                    long wcu = (long) number(query, "wcu", 2000);
                    String table = AdminRoutes.parameter(query, "table");
                    return view(simulator.start(new HotKeySimulator.Settings(
                            table == null ? "hotkey-sim" : table,
                            wcu,
                            number(query, "offered", wcu * 0.75),
                            (int) number(query, "itemKb", 4),
                            number(query, "share", 0))));
                case "/admin/simulator/share":
                    return view(simulator.share(number(query, "value", Double.NaN)));
                case "/admin/simulator/stop":
                    return view(simulator.stop());
                default:
                    return AdminRoutes.error(404, "Not found: " + path);
            }
        } catch (IllegalArgumentException e) {
            return AdminRoutes.error(400, e.getMessage());
        } catch (IllegalStateException e) {
            return AdminRoutes.error(409, e.getMessage());
        }
    }

    private static double number(String query, String name, double otherwise) {
        String v = AdminRoutes.parameter(query, name);
        if (v == null) {
            return otherwise;
        }
        try {
            return Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " is not a number: " + v);
        }
    }

    private static Answer view(HotKeySimulator.Status s) {
        return AdminRoutes.json(g -> {
            g.writeStartObject();
            if (s != null) {
                write(g, s);
            } else {
                g.writeBooleanField("running", false);
            }
            g.writeEndObject();
        });
    }

    private static void write(JsonGenerator g, HotKeySimulator.Status s) throws IOException {
        g.writeBooleanField("running", s.running());
        g.writeStringField("tableName", s.settings().table());
        g.writeNumberField("provisionedWriteCapacityUnits", s.settings().writeCapacityUnits());
        g.writeNumberField("offeredWriteUnitsPerSecond", s.settings().offeredUnits());
        g.writeNumberField("itemKb", s.settings().itemKb());
        g.writeNumberField("unitsPerRequest", s.settings().unitsPerRequest());
        g.writeNumberField("hotShare", s.settings().share());
        g.writeStringField("hotKey", HotKeySimulator.HOT_KEY);
        g.writeNumberField("sent", s.sent());
        g.writeNumberField("succeeded", s.succeeded());
        g.writeNumberField("throttled", s.throttled());
        g.writeNumberField("failed", s.failed());
        if (s.lastError() != null) {
            g.writeStringField("lastError", s.lastError());
        }
        if (s.hotPartitionId() != null) {
            g.writeStringField("hotPartitionId", s.hotPartitionId());
            g.writeNumberField("partitionCount", s.partitionCount());
            g.writeNumberField("hotPartitionWidth", s.hotWidth());
        }
        HotKeyPrediction p = s.prediction();
        g.writeNumberField("partitionWriteCeiling", p.ceiling());
        g.writeNumberField("predictedHotDemand", p.demand(s.settings().share()));
        double at = p.throttleShare();
        if (Double.isNaN(at)) {
            g.writeNullField("predictedThrottleShare");
        } else {
            g.writeNumberField("predictedThrottleShare", at);
        }
    }
}
