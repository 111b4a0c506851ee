package io.partita.bench.hotkey;

import java.util.Locale;

/**
 * A minimal SVG writer: the handful of elements a line-and-bar chart needs, with every attribute value and text
 * escaped, so the output is always well-formed XML.
 */
final class Svg {
    private final StringBuilder sb = new StringBuilder(16 * 1024);

    Svg(int width, int height) {
        sb.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"")
                .append(width)
                .append("\" height=\"")
                .append(height)
                .append("\" viewBox=\"0 0 ")
                .append(width)
                .append(' ')
                .append(height)
                .append("\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"13\">\n");
    }

    /** Escapes the five XML special characters (enough for text and for double-quoted attributes). */
    static String escape(String s) {
        StringBuilder out = new StringBuilder(s.length() + 8);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&apos;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }

    /** A coordinate with one decimal, always with a dot. */
    static String num(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    Svg raw(String element) {
        sb.append(element).append('\n');
        return this;
    }

    Svg rect(double x, double y, double w, double h, String style, String cssClass, String tooltip) {
        sb.append("<rect");
        attr("class", cssClass);
        sb.append(" x=\"").append(num(x)).append("\" y=\"").append(num(y));
        sb.append("\" width=\"")
                .append(num(Math.max(0, w)))
                .append("\" height=\"")
                .append(num(Math.max(0, h)));
        sb.append("\" style=\"").append(escape(style)).append('"');
        return close("rect", tooltip);
    }

    Svg line(double x1, double y1, double x2, double y2, String style) {
        sb.append("<line x1=\"").append(num(x1)).append("\" y1=\"").append(num(y1));
        sb.append("\" x2=\"").append(num(x2)).append("\" y2=\"").append(num(y2));
        sb.append("\" style=\"").append(escape(style)).append("\"/>\n");
        return this;
    }

    /** A path through the points, broken where a y is NaN (a step the server did not report). */
    Svg path(double[] xs, double[] ys, String style, String cssClass) {
        StringBuilder d = new StringBuilder();
        boolean pen = false;
        for (int i = 0; i < xs.length; i++) {
            if (Double.isNaN(ys[i])) {
                pen = false;
                continue;
            }
            d.append(pen ? " L" : (d.length() == 0 ? "M" : " M"))
                    .append(num(xs[i]))
                    .append(' ')
                    .append(num(ys[i]));
            pen = true;
        }
        if (d.length() == 0) return this;
        sb.append("<path");
        attr("class", cssClass);
        sb.append(" d=\"")
                .append(d)
                .append("\" style=\"fill:none;")
                .append(escape(style))
                .append("\"/>\n");
        return this;
    }

    Svg circle(double cx, double cy, double r, String style, String cssClass, String tooltip) {
        sb.append("<circle");
        attr("class", cssClass);
        sb.append(" cx=\"")
                .append(num(cx))
                .append("\" cy=\"")
                .append(num(cy))
                .append("\" r=\"")
                .append(num(r));
        sb.append("\" style=\"").append(escape(style)).append('"');
        return close("circle", tooltip);
    }

    /** Text anchored at (x, y); {@code rotate} turns it about that point (-90 for a vertical axis label). */
    Svg text(double x, double y, String text, String anchor, String style, int rotate) {
        sb.append("<text x=\"").append(num(x)).append("\" y=\"").append(num(y)).append("\" text-anchor=\"");
        sb.append(anchor).append('"');
        if (!style.isEmpty()) sb.append(" style=\"").append(escape(style)).append('"');
        if (rotate != 0) {
            sb.append(" transform=\"rotate(")
                    .append(rotate)
                    .append(' ')
                    .append(num(x))
                    .append(' ');
            sb.append(num(y)).append(")\"");
        }
        sb.append('>').append(escape(text)).append("</text>\n");
        return this;
    }

    String end() {
        return sb.append("</svg>\n").toString();
    }

    private void attr(String name, String value) {
        if (value != null)
            sb.append(' ').append(name).append("=\"").append(escape(value)).append('"');
    }

    private Svg close(String element, String tooltip) {
        if (tooltip == null) {
            sb.append("/>\n");
        } else {
            sb.append("><title>")
                    .append(escape(tooltip))
                    .append("</title></")
                    .append(element)
                    .append(">\n");
        }
        return this;
    }
}
