package io.partita.server.admin;

import com.fasterxml.jackson.core.JsonGenerator;
import io.partita.server.fault.FaultInjector;
import io.partita.server.fault.FaultRule;
import java.io.IOException;

/**
 * The injected faults' admin view and changes: {@code GET /admin/faults} lists the rules with their counts; {@code
 * POST /admin/faults?fault=throttle&table=…&operation=…&rate=…&count=…&latency=…&seed=…} adds one; {@code DELETE
 * /admin/faults?id=N} removes one, and without {@code id} every one ({@code seed=…} reseeds what comes next).
 */
final class FaultRoutes {
    private static final String[] SETTINGS = {"fault", "table", "operation", "rate", "count", "latency", "seed"};

    private final FaultInjector faults;

    FaultRoutes(FaultInjector faults) {
        this.faults = faults;
    }

    AdminRoutes.Answer view() {
        return AdminRoutes.json(g -> {
            g.writeStartObject();
            g.writeNumberField("seed", faults.seed());
            g.writeArrayFieldStart("faults");
            for (FaultRule r : faults.rules()) {
                rule(g, r);
            }
            g.writeEndArray();
            g.writeEndObject();
        });
    }

    AdminRoutes.Answer change(String method, String query) {
        switch (method) {
            case "POST" -> {
                StringBuilder spec = new StringBuilder();
                for (String name : SETTINGS) {
                    String v = AdminRoutes.parameter(query, name);
                    if (v != null) {
                        spec.append(spec.isEmpty() ? "" : ",")
                                .append(name)
                                .append('=')
                                .append(v);
                    }
                }
                FaultRule r;
                try {
                    r = faults.add(FaultRule.Spec.parse(spec.toString()));
                } catch (IllegalArgumentException e) {
                    return AdminRoutes.error(400, e.getMessage());
                }
                return AdminRoutes.json(g -> rule(g, r));
            }
            case "DELETE" -> {
                String id = AdminRoutes.parameter(query, "id");
                if (id == null) {
                    String seed = AdminRoutes.parameter(query, "seed");
                    try {
                        faults.clear(seed == null ? faults.seed() : Long.parseLong(seed));
                    } catch (NumberFormatException e) {
                        return AdminRoutes.error(400, "seed is a number: " + seed);
                    }
                    return view();
                }
                try {
                    return faults.remove(Integer.parseInt(id)) ? view() : AdminRoutes.error(404, "no fault " + id);
                } catch (NumberFormatException e) {
                    return AdminRoutes.error(400, "id is a number: " + id);
                }
            }
            default -> {
                return new AdminRoutes.Answer(
                        405, "text/plain; charset=utf-8", AdminRoutes.bytes("Method not allowed\n"));
            }
        }
    }

    private static void rule(JsonGenerator g, FaultRule r) throws IOException {
        FaultRule.Spec s = r.spec();
        g.writeStartObject();
        g.writeNumberField("id", r.id());
        g.writeStringField("fault", s.kind().name().toLowerCase(java.util.Locale.ROOT));
        g.writeStringField("table", s.table() == null ? "*" : s.table());
        g.writeStringField("operation", s.operation() == null ? "*" : s.operation());
        g.writeNumberField("rate", s.rate());
        g.writeNumberField("remaining", r.remaining());
        if (s.latencyMillis() > 0) {
            g.writeNumberField("latencyMillis", s.latencyMillis());
        }
        g.writeNumberField("injected", r.injected());
        g.writeEndObject();
    }

    /** {@code partita_faults_injected_total}, one series per rule. */
}
