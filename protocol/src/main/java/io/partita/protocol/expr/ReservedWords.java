package io.partita.protocol.expr;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * DynamoDB's reserved words ("Reserved words in DynamoDB", ReservedWords.html): they cannot appear bare as attribute
 * names in an expression; a {@code #name} placeholder must stand in for them.
 */
public final class ReservedWords {
    private static final Set<String> WORDS = load();

    private ReservedWords() {}

    public static boolean contains(String word) {
        return WORDS.contains(word.toUpperCase(Locale.ROOT));
    }

    static int count() {
        return WORDS.size();
    }

    private static Set<String> load() {
        Set<String> words = new HashSet<>();
        try (InputStream in = ReservedWords.class.getResourceAsStream("reserved-words.txt")) {
            if (in == null) {
                throw new IllegalStateException("reserved-words.txt is missing from the classpath");
            }
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (!line.isBlank()) {
                    words.add(line.strip().toUpperCase(Locale.ROOT));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Set.copyOf(words);
    }
}
