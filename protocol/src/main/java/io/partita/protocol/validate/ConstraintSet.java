package io.partita.protocol.validate;

import io.partita.protocol.error.ApiException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Collects DynamoDB's declarative parameter checks and reports them the way DynamoDB does:
 * {@code 1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length
 * greater than or equal to 3}, with several failures joined by {@code "; "} and at most ten listed.
 */
public final class ConstraintSet {
    private static final int MAX_LISTED = 10;
    private final List<String> failures = new ArrayList<>();

    public ConstraintSet notNull(String path, Object value) {
        if (value == null) {
            fail(path, null, "Member must not be null");
        }
        return this;
    }

    public ConstraintSet length(String path, String value, int min, int max) {
        if (value != null) {
            int n = value.codePointCount(0, value.length());
            if (n < min) {
                fail(path, value, "Member must have length greater than or equal to " + min);
            } else if (n > max) {
                fail(path, value, "Member must have length less than or equal to " + max);
            }
        }
        return this;
    }

    public ConstraintSet size(String path, Collection<?> value, int min, int max) {
        if (value != null) {
            if (value.size() < min) {
                fail(path, value, "Member must have length greater than or equal to " + min);
            } else if (value.size() > max) {
                fail(path, value, "Member must have length less than or equal to " + max);
            }
        }
        return this;
    }

    public ConstraintSet pattern(String path, String value, Pattern pattern) {
        if (value != null && !pattern.matcher(value).matches()) {
            fail(path, value, "Member must satisfy regular expression pattern: " + pattern.pattern());
        }
        return this;
    }

    public ConstraintSet enumValue(String path, String value, List<String> allowed) {
        if (value != null && !allowed.contains(value)) {
            fail(path, value, "Member must satisfy enum value set: " + allowed);
        }
        return this;
    }

    public ConstraintSet atLeast(String path, Long value, long min) {
        if (value != null && value < min) {
            fail(path, value, "Member must have value greater than or equal to " + min);
        }
        return this;
    }

    public ConstraintSet atMost(String path, Long value, long max) {
        if (value != null && value > max) {
            fail(path, value, "Member must have value less than or equal to " + max);
        }
        return this;
    }

    private void fail(String path, Object value, String constraint) {
        String shown = value == null ? "null" : "'" + value + "'";
        failures.add("Value " + shown + " at '" + path + "' failed to satisfy constraint: " + constraint);
    }

    public boolean isEmpty() {
        return failures.isEmpty();
    }

    /** Throws DynamoDB's ValidationException listing every failure found, if there was any. */
    public void check() {
        if (failures.isEmpty()) {
            return;
        }
        int n = failures.size();
        String head = n + " validation error" + (n == 1 ? "" : "s") + " detected: ";
        throw ApiException.validation(head + String.join("; ", failures.subList(0, Math.min(n, MAX_LISTED))));
    }
}
