package io.partita.server.op.table;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.message.Tag;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Tag rules ("Tagging restrictions in DynamoDB"): keys of 1 to 128 characters and values of 0 to 256 (characters,
 * not bytes), of letters, numbers and white space in any script and {@code + - = . _ : / @}; no key starting with
 * {@code aws:} (in any case); no key twice in one request; at most 50 tags on a table. DynamoDB words each refusal
 * itself rather than with its generic "Member must have length" text, as live captures of it show.
 */
final class Tags {
    static final int MAX_TAGS = 50;
    private static final Pattern ALLOWED = Pattern.compile("[\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]*");

    private Tags() {}

    /** Checks TagResource's or CreateTable's tags; the whole request is refused for one bad tag. */
    static void check(List<Tag> tags) {
        if (tags == null) {
            return;
        }
        Set<String> seen = new HashSet<>();
        for (Tag t : tags) {
            String key = t == null ? null : t.key();
            checkKey(key);
            String value = t.value();
            if (value == null
                    || value.codePointCount(0, value.length()) > 256
                    || !ALLOWED.matcher(value).matches()) {
                throw ApiException.validation("The Tag Value provided is invalid, Value: " + value);
            }
            if (!seen.add(key)) {
                throw ApiException.validation("Duplicate Tag Keys provided as input: Duplicate Tag Key found " + key);
            }
        }
    }

    /** One tag key, of TagResource, CreateTable or UntagResource. */
    static void checkKey(String key) {
        if (key == null
                || key.isEmpty()
                || key.codePointCount(0, key.length()) > 128
                || !ALLOWED.matcher(key).matches()) {
            throw ApiException.validation("The Tag Key provided is invalid, Key: " + key);
        }
        if (key.toLowerCase(Locale.ROOT).startsWith("aws:")) {
            throw ApiException.validation("Tag Key cannot be prefixed with aws:, Key: " + key);
        }
    }

    /** The tags a table would have, counted once merged with what it has. */
    static void checkCount(Map<String, String> merged) {
        if (merged.size() > MAX_TAGS) {
            throw ApiException.validation("Number of Tags exceed the current limit for the provided ResourceArn");
        }
    }

    static Map<String, String> toMap(List<Tag> tags) {
        Map<String, String> map = new LinkedHashMap<>();
        if (tags != null) {
            tags.forEach(t -> map.put(t.key(), t.value()));
        }
        return map;
    }
}
