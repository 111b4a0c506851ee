package io.partita.bench.hotkey;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The sweep's results as a table, one row per hot-key share, rendered as plain text (stdout) or as an HTML table
 * (the chart page). Cells the server did not report read "-".
 */
final class SweepTable {
    private final List<StepResult> steps;
    private final String unit;

    SweepTable(List<StepResult> steps, Op op) {
        this.steps = List.copyOf(steps);
        this.unit = op.unit;
    }

    /** Column headings, each a name and its unit. */
    List<String[]> headers() {
        return List.of(
                new String[] {"share", "%"},
                new String[] {"offered", unit + "/s"},
                new String[] {"sent", "req/s"},
                new String[] {"table", unit + "/s"},
                new String[] {"provisioned", unit + "/s"},
                new String[] {"hot part", "id"},
                new String[] {"hot part", unit + "/s"},
                new String[] {"ceiling", unit + "/s"},
                new String[] {"throttled", "req/s"},
                new String[] {"throttled", "%"},
                new String[] {"thr events", "/s"},
                new String[] {"errors", "req"});
    }

    List<List<String>> rows() {
        List<List<String>> rows = new ArrayList<>();
        for (StepResult s : steps) {
            StepRates r = s.server();
            ClientCounts c = s.client();
            rows.add(List.of(
                    number(s.sharePercent(), s.sharePercent() % 1 == 0 ? 0 : 1),
                    number(s.offered(), 0),
                    number(c.sentPerSecond(), 0),
                    number(s.tableConsumed(), 0),
                    number(s.provisioned(), 0),
                    r == null || r.hotPartitionId() == null ? "-" : r.hotPartitionId(),
                    number(s.hotConsumed(), 0),
                    number(s.hotCeiling(), 0),
                    number(c.throttledPerSecond(), 1),
                    number(c.throttlePercent(), 1),
                    r == null ? "-" : number(r.throttleEventsPerSecond(), 1),
                    Long.toString(c.errors())));
        }
        return rows;
    }

    /** Right-aligned text columns, as wide as their widest cell. */
    String text() {
        List<String[]> headers = headers();
        List<List<String>> rows = rows();
        int[] width = new int[headers.size()];
        for (int i = 0; i < width.length; i++) {
            width[i] = Math.max(headers.get(i)[0].length(), headers.get(i)[1].length());
            for (List<String> row : rows)
                width[i] = Math.max(width[i], row.get(i).length());
        }
        StringBuilder sb = new StringBuilder();
        for (int line = 0; line < 2; line++) {
            for (int i = 0; i < width.length; i++) pad(sb, headers.get(i)[line], width[i], i);
            sb.append('\n');
        }
        for (List<String> row : rows) {
            for (int i = 0; i < width.length; i++) pad(sb, row.get(i), width[i], i);
            sb.append('\n');
        }
        return sb.toString();
    }

    /** What the table cannot show: throttling reasons, errors, unsent requests and metrics that do not add up. */
    List<String> notes() {
        List<String> notes = new ArrayList<>();
        for (StepResult s : steps) {
            String share = "share " + number(s.sharePercent(), s.sharePercent() % 1 == 0 ? 0 : 1) + "%: ";
            ClientCounts c = s.client();
            if (!c.throttleReasons().isEmpty()) notes.add(share + "throttling reasons " + counts(c.throttleReasons()));
            if (!c.errorTypes().isEmpty()) notes.add(share + "errors " + counts(c.errorTypes()));
            if (c.unsent() > 0) {
                notes.add(share + c.unsent() + " requests unsent: too few connections for the latency (--connections)");
            }
            if (c.unfinished() > 0) notes.add(share + c.unfinished() + " requests unanswered at the end of the step");
            if (s.server() != null) {
                for (String n : s.server().inconsistencies(s.clientConsumed())) notes.add(share + n);
                if (s.server().splits() > 0) notes.add(share + s.server().splits() + " partition split(s)");
            }
        }
        return notes;
    }

    String html() {
        StringBuilder sb = new StringBuilder("<table>\n<thead>\n");
        for (int line = 0; line < 2; line++) {
            sb.append("<tr>");
            for (String[] h : headers())
                sb.append("<th>").append(Svg.escape(h[line])).append("</th>");
            sb.append("</tr>\n");
        }
        sb.append("</thead>\n<tbody>\n");
        for (List<String> row : rows()) {
            sb.append("<tr>");
            for (String cell : row) sb.append("<td>").append(Svg.escape(cell)).append("</td>");
            sb.append("</tr>\n");
        }
        return sb.append("</tbody>\n</table>\n").toString();
    }

    static String number(double v, int decimals) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%." + decimals + "f", v);
    }

    private static String counts(Map<String, Long> m) {
        return m.entrySet().stream().map(e -> e.getKey() + " ×" + e.getValue()).collect(Collectors.joining(", "));
    }

    private static void pad(StringBuilder sb, String s, int width, int column) {
        if (column > 0) sb.append("  ");
        sb.append(" ".repeat(width - s.length())).append(s);
    }
}
