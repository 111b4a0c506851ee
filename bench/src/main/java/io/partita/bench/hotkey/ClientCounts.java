package io.partita.bench.hotkey;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.partita.bench.load.HttpConnection.Response;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the client saw during one step.
 *
 * @param seconds the length of the step's sending window
 * @param sent requests written to a connection
 * @param throttled answers whose {@code __type} ends in {@code ProvisionedThroughputExceededException} or
 *     {@code ThrottlingException}
 * @param errors every other failure: other error types, broken connections
 * @param unsent requests that fell due but found no free connection before the step ended (open loop fell behind)
 * @param unfinished requests still unanswered when the step was closed
 * @param throttleReasons how often each {@code ThrottlingReasons[].reason} was seen ("(none)" if a throttle had none)
 * @param errorTypes how often each other error type was seen
 */
public record ClientCounts(
        double seconds,
        long sent,
        long ok,
        long throttled,
        long errors,
        long unsent,
        long unfinished,
        Map<String, Long> throttleReasons,
        Map<String, Long> errorTypes) {

    private static final ObjectMapper JSON = new ObjectMapper();

    public ClientCounts {
        throttleReasons = Collections.unmodifiableMap(new TreeMap<>(throttleReasons));
        errorTypes = Collections.unmodifiableMap(new TreeMap<>(errorTypes));
    }

    public double sentPerSecond() {
        return sent / seconds;
    }

    public double throttledPerSecond() {
        return throttled / seconds;
    }

    /** Throttled answers as a percentage of the answers received. */
    public double throttlePercent() {
        long answered = ok + throttled + errors;
        return answered == 0 ? 0 : 100.0 * throttled / answered;
    }

    /** Whether an error type (short or full, e.g. {@code com.amazonaws...#ThrottlingException}) means "slow down". */
    static boolean isThrottle(String errorType) {
        return errorType != null
                && (errorType.endsWith("ProvisionedThroughputExceededException")
                        || errorType.endsWith("ThrottlingException"));
    }

    /**
     * The {@code ThrottlingReasons[].reason} values of an error body, e.g. {@code
     * {"__type":"...#ProvisionedThroughputExceededException","ThrottlingReasons":[{"reason":
     * "TableWriteKeyRangeThroughputExceeded","resource":"arn:..."}]}}; empty if there are none or the body is not
     * JSON.
     */
    static List<String> throttlingReasons(String body) {
        List<String> reasons = new ArrayList<>();
        if (body == null || body.isEmpty()) return reasons;
        try {
            for (JsonNode r : JSON.readTree(body).path("ThrottlingReasons")) {
                String reason = r.path("reason").asText("");
                if (!reason.isEmpty()) reasons.add(reason);
            }
        } catch (IOException e) {
            // Not JSON (a proxy's error page): no reasons to report.
        }
        return reasons;
    }

    /** The mutable tally behind a {@link ClientCounts}; confined to one thread (the scenario's event loop). */
    static final class Tally {
        long sent;
        long ok;
        long throttled;
        long errors;
        private final Map<String, Long> throttleReasons = new TreeMap<>();
        private final Map<String, Long> errorTypes = new TreeMap<>();

        void answered(Response r) {
            if (r.ok()) {
                ok++;
            } else if (isThrottle(r.errorType())) {
                throttled++;
                List<String> reasons = throttlingReasons(r.body());
                if (reasons.isEmpty()) reasons = List.of("(none)");
                for (String reason : reasons) throttleReasons.merge(reason, 1L, Long::sum);
            } else {
                errors++;
                errorTypes.merge(r.errorType(), 1L, Long::sum);
            }
        }

        void failed(Throwable t) {
            errors++;
            errorTypes.merge(t.getClass().getSimpleName(), 1L, Long::sum);
        }

        ClientCounts freeze(double seconds, long unsent, long unfinished) {
            return new ClientCounts(
                    seconds, sent, ok, throttled, errors, unsent, unfinished, throttleReasons, errorTypes);
        }
    }
}
