package io.partita.bench.hotkey;

import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.DoubleStream;

/**
 * Draws the sweep by hand as SVG: x is the hot key's share of requests; on the left axis (capacity units/s) the
 * offered load, the table's consumption against its provisioned rate and the hot partition's consumption against its
 * ceiling; on the right axis, bars of throttled requests/s. The picture to look for: the red line flattens at the red
 * dashed ceiling and the bars grow, while the blue line stays under the blue dashed provisioned rate.
 */
final class SweepChart {
    static final int WIDTH = 960;
    static final int HEIGHT = 570;
    private static final double LEFT = 90;
    private static final double RIGHT = WIDTH - 90;
    private static final double TOP = 80;
    private static final double BOTTOM = 440;
    /** Room between an axis and the first or last share, so their bars do not straddle the axis. */
    private static final double X_PAD = 24;

    private static final String GREY = "#7f7f7f";
    private static final String BLUE = "#1f77b4";
    private static final String RED = "#d62728";
    private static final String ORANGE = "#ff7f0e";

    private final List<StepResult> steps;
    private final String unit;
    private final String title;
    private final String subtitle;
    private Axis units;
    private Axis throttled;

    SweepChart(List<StepResult> steps, Op op, String title, String subtitle) {
        this.steps = steps.stream()
                .sorted(Comparator.comparingDouble(StepResult::sharePercent))
                .toList();
        this.unit = op.unit;
        this.title = title;
        this.subtitle = subtitle;
    }

    /** A standalone SVG document. */
    String svg() {
        units = Axis.covering(1.05
                * steps.stream()
                        .flatMapToDouble(s -> DoubleStream.of(
                                s.offered(), s.tableConsumed(), s.provisioned(), s.hotConsumed(), s.hotCeiling()))
                        .filter(v -> !Double.isNaN(v))
                        .max()
                        .orElse(1));
        throttled = Axis.covering(
                1.05
                        * steps.stream()
                                .mapToDouble(s -> s.client().throttledPerSecond())
                                .max()
                                .orElse(1),
                units.intervals());
        Svg svg = new Svg(WIDTH, HEIGHT);
        svg.rect(0, 0, WIDTH, HEIGHT, "fill:#ffffff", null, null);
        svg.text(WIDTH / 2.0, 30, title, "middle", "font-size:18px;font-weight:bold", 0);
        svg.text(WIDTH / 2.0, 52, subtitle, "middle", "fill:#444444", 0);
        axes(svg);
        bars(svg);
        double[] xs = steps.stream().mapToDouble(s -> x(s.sharePercent())).toArray();
        svg.path(xs, ys(StepResult::offered), "stroke:" + GREY + ";stroke-width:1.5;stroke-dasharray:2 4", "offered");
        svg.path(xs, ys(StepResult::provisioned), "stroke:" + BLUE + ";stroke-width:2;stroke-dasharray:8 5", "prov");
        svg.path(xs, ys(StepResult::hotCeiling), "stroke:" + RED + ";stroke-width:2;stroke-dasharray:8 5", "ceiling");
        svg.path(xs, ys(StepResult::tableConsumed), "stroke:" + BLUE + ";stroke-width:2.5", "table-consumed");
        svg.path(xs, ys(StepResult::hotConsumed), "stroke:" + RED + ";stroke-width:2.5", "hot-consumed");
        points(svg, xs, StepResult::tableConsumed, BLUE, "point table-consumed", "table consumed");
        points(svg, xs, StepResult::hotConsumed, RED, "point hot-consumed", "hot partition consumed");
        legend(svg);
        return svg.end();
    }

    /** An HTML page with the chart inline, the results table and the notes. */
    String html(SweepTable table) {
        StringBuilder sb = new StringBuilder("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
        sb.append("<title>")
                .append(Svg.escape(title))
                .append("</title>\n<style>\n")
                .append("body{font-family:Helvetica,Arial,sans-serif;margin:24px;color:#222}\n")
                .append("table{border-collapse:collapse;margin-top:16px}\n")
                .append("th,td{padding:3px 10px;text-align:right;border-bottom:1px solid #ddd}\n")
                .append("th{background:#f4f4f4}\n</style>\n</head>\n<body>\n");
        sb.append(svg()).append(table.html());
        List<String> notes = table.notes();
        if (!notes.isEmpty()) {
            sb.append("<ul>\n");
            for (String n : notes) sb.append("<li>").append(Svg.escape(n)).append("</li>\n");
            sb.append("</ul>\n");
        }
        return sb.append("</body>\n</html>\n").toString();
    }

    private void axes(Svg svg) {
        // The right axis has as many intervals as the left, so both share the grid lines.
        for (int i = 0; i <= units.intervals(); i++) {
            double y = yUnits(units.step() * i);
            svg.line(LEFT, y, RIGHT, y, "stroke:#e6e6e6");
            svg.text(LEFT - 8, y + 4, tick(units.step() * i), "end", "", 0);
            svg.text(RIGHT + 8, y + 4, tick(throttled.step() * i), "start", "fill:" + ORANGE, 0);
        }
        for (int share = 0; share <= 100; share += 10) {
            svg.line(x(share), BOTTOM, x(share), BOTTOM + 5, "stroke:#333333");
            svg.text(x(share), BOTTOM + 20, share + "%", "middle", "", 0);
        }
        svg.line(LEFT, BOTTOM, RIGHT, BOTTOM, "stroke:#333333");
        svg.line(LEFT, TOP, LEFT, BOTTOM, "stroke:#333333");
        svg.line(RIGHT, TOP, RIGHT, BOTTOM, "stroke:" + ORANGE);
        double mid = (TOP + BOTTOM) / 2;
        svg.text((LEFT + RIGHT) / 2, BOTTOM + 45, "hot key's share of requests", "middle", "", 0);
        svg.text(28, mid, "capacity units per second (" + unit + "/s)", "middle", "", -90);
        svg.text(WIDTH - 28, mid, "throttled requests per second", "middle", "fill:" + ORANGE, 90);
    }

    private void bars(Svg svg) {
        double gap = RIGHT - LEFT;
        for (int i = 1; i < steps.size(); i++) {
            double d = x(steps.get(i).sharePercent()) - x(steps.get(i - 1).sharePercent());
            if (d > 0) gap = Math.min(gap, d);
        }
        double w = Math.min(30, 0.6 * gap);
        for (StepResult s : steps) {
            double t = s.client().throttledPerSecond();
            double y = yThrottled(t);
            String tip = String.format(
                    Locale.ROOT,
                    "share %s%%: %.1f throttled req/s (%.1f%%)",
                    SweepTable.number(s.sharePercent(), s.sharePercent() % 1 == 0 ? 0 : 1),
                    t,
                    s.client().throttlePercent());
            svg.rect(
                    x(s.sharePercent()) - w / 2,
                    y,
                    w,
                    BOTTOM - y,
                    "fill:" + ORANGE + ";fill-opacity:0.45",
                    "bar throttled",
                    tip);
        }
    }

    private void points(Svg svg, double[] xs, Series series, String color, String cssClass, String label) {
        for (int i = 0; i < steps.size(); i++) {
            double v = series.value(steps.get(i));
            if (Double.isNaN(v)) continue;
            String tip = String.format(
                    Locale.ROOT, "share %s%%: %s %.1f %s/s", tick(steps.get(i).sharePercent()), label, v, unit);
            svg.circle(xs[i], yUnits(v), 4, "fill:" + color + ";stroke:#ffffff", cssClass, tip);
        }
    }

    private void legend(Svg svg) {
        String[][] entries = {
            {"offered load", GREY, "stroke-dasharray:2 4"},
            {"table consumed", BLUE, ""},
            {"table provisioned", BLUE, "stroke-dasharray:8 5"},
            {"throttled requests/s (right axis)", ORANGE, "bar"},
            {"hot partition consumed", RED, ""},
            {"partition ceiling", RED, "stroke-dasharray:8 5"}
        };
        for (int i = 0; i < entries.length; i++) {
            double lx = LEFT + (i % 3) * 260;
            double ly = BOTTOM + 80 + (i / 3) * 24;
            String[] e = entries[i];
            if (e[2].equals("bar")) {
                svg.rect(lx, ly - 9, 28, 12, "fill:" + e[1] + ";fill-opacity:0.45", null, null);
            } else {
                svg.line(lx, ly - 3, lx + 28, ly - 3, "stroke:" + e[1] + ";stroke-width:2.5;" + e[2]);
            }
            svg.text(lx + 36, ly + 1, e[0], "start", "", 0);
        }
    }

    private double[] ys(Series series) {
        return steps.stream().mapToDouble(s -> yUnits(series.value(s))).toArray();
    }

    private static double x(double share) {
        return LEFT + X_PAD + (RIGHT - LEFT - 2 * X_PAD) * share / 100;
    }

    private double yUnits(double v) {
        return Double.isNaN(v) ? Double.NaN : BOTTOM - (BOTTOM - TOP) * v / units.max();
    }

    private double yThrottled(double v) {
        return BOTTOM - (BOTTOM - TOP) * v / throttled.max();
    }

    /** A value axis from 0: {@code intervals} ticks of a round {@code step}. */
    record Axis(double step, int intervals) {
        double max() {
            return step * intervals;
        }

        /** Round steps, at most five of them, reaching {@code v}. */
        static Axis covering(double v) {
            double step = niceAtLeast(v / 5);
            return new Axis(step, (int) Math.max(1, Math.ceil(v / step - 1e-9)));
        }

        /** Exactly {@code intervals} round steps reaching {@code v}. */
        static Axis covering(double v, int intervals) {
            return new Axis(niceAtLeast(v / intervals), intervals);
        }
    }

    /** The smallest 1, 2, 2.5 or 5 × 10^n at or above {@code v}; 1 for nothing to show. */
    static double niceAtLeast(double v) {
        if (!(v > 0)) return 1;
        double p = Math.pow(10, Math.floor(Math.log10(v)));
        for (double m : new double[] {1, 2, 2.5, 5}) {
            if (m * p >= v * (1 - 1e-12)) return m * p;
        }
        return 10 * p;
    }

    private static String tick(double v) {
        return SweepTable.number(v, v == Math.rint(v) ? 0 : 1);
    }

    /** One quantity of a step, plotted against the left axis. */
    @FunctionalInterface
    private interface Series {
        double value(StepResult s);
    }
}
