package io.partita.server.cli;

import java.util.Locale;
import picocli.CommandLine;

/** Parses sizes such as {@code 10GB}, {@code 4MB}, {@code 512KB} or a plain byte count. */
final class Sizes {
    private Sizes() {}

    static long parse(String text) {
        String t = text.trim().toUpperCase(Locale.ROOT);
        long unit = 1;
        for (String[] suffix : new String[][] {{"GB", "1073741824"}, {"MB", "1048576"}, {"KB", "1024"}, {"B", "1"}}) {
            if (t.endsWith(suffix[0])) {
                unit = Long.parseLong(suffix[1]);
                t = t.substring(0, t.length() - suffix[0].length()).trim();
                break;
            }
        }
        try {
            long v = Long.parseLong(t) * unit;
            if (v <= 0) {
                throw new NumberFormatException();
            }
            return v;
        } catch (NumberFormatException e) {
            throw new CommandLine.TypeConversionException("not a size: " + text + " (examples: 10GB, 4MB, 65536)");
        }
    }

    /** For size options: a bad value is reported by picocli as a usage error, before anything starts. */
    static final class Converter implements CommandLine.ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            return parse(value);
        }
    }
}
