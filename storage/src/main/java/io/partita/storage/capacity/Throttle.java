package io.partita.storage.capacity;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import java.util.List;
import java.util.Map;

/**
 * Why a request was refused: one or more limit types (DynamoDB's {@code ThrottlingReason} vocabulary,
 * API_ThrottlingReason: {@code KeyRangeThroughputExceeded}, {@code ProvisionedThroughputExceeded},
 * {@code AccountLimitExceeded}, {@code MaxOnDemandThroughputExceeded}).
 */
public record Throttle(CapacityKind kind, boolean onDemand, List<String> limitTypes, String index) {
    public static final String KEY_RANGE = "KeyRangeThroughputExceeded";
    public static final String PROVISIONED = "ProvisionedThroughputExceeded";
    public static final String ACCOUNT_LIMIT = "AccountLimitExceeded";
    public static final String MAX_ON_DEMAND = "MaxOnDemandThroughputExceeded";

    /** DynamoDB's message for provisioned tables (unchanged since the first API version). */
    static final String PROVISIONED_MESSAGE = "The level of configured provisioned throughput for the table was"
            + " exceeded. Consider increasing your provisioning level with the UpdateTable API.";

    static final String ON_DEMAND_MESSAGE = "Throughput exceeds the current capacity of your table or index."
            + " DynamoDB is automatically scaling your table or index so please try again shortly. If exceptions"
            + " persist, check if you have a hot key:"
            + " https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html";

    static final String MAX_ON_DEMAND_MESSAGE =
            "Throughput exceeds the maximum OnDemandThroughput configured on table or index";

    static final String ACCOUNT_MESSAGE = "Throughput exceeds the current throughput limit for your account. Please"
            + " contact AWS Support at https://aws.amazon.com/support request a limit increase";

    public Throttle {
        limitTypes = List.copyOf(limitTypes);
    }

    /** A throttle of the table itself. */
    public Throttle(CapacityKind kind, boolean onDemand, List<String> limitTypes) {
        this(kind, onDemand, limitTypes, null);
    }

    /** The same throttle, caused by the table's GSI {@code indexName} (a GSI that cannot keep up throttles writes). */
    public Throttle ofIndex(String indexName) {
        return new Throttle(kind, onDemand, limitTypes, indexName);
    }

    /**
     * {@code TableReadKeyRangeThroughputExceeded} and so on, one per limit type; {@code IndexWrite…} when a GSI caused
     * it.
     */
    public List<String> reasons() {
        String what = index == null ? "Table" : "Index";
        return limitTypes.stream().map(t -> what + kind.word() + t).toList();
    }

    /**
     * The error DynamoDB answers (Troubleshooting throttling, "Diagnosing throttling"): provisioned tables answer
     * {@code ProvisionedThroughputExceededException}; on-demand tables {@code ThrottlingException}, or
     * {@code RequestLimitExceeded} when only the account quota was hit. Every one carries {@code ThrottlingReasons}.
     */
    public ApiException toException(String tableArn) {
        String resource = index == null ? tableArn : tableArn + "/index/" + index;
        List<Map<String, String>> reasons = reasons().stream()
                .map(r -> Map.of("reason", r, "resource", resource))
                .toList();
        Map<String, Object> extra = Map.of("ThrottlingReasons", reasons);
        // ThrottlingException's model spells the member "throttlingReasons" (lower case, as in the SDKs' models);
        // the two DynamoDB exceptions spell it "ThrottlingReasons".
        Map<String, Object> throttlingExtra = Map.of("throttlingReasons", reasons);
        if (!onDemand) {
            return new ApiException(ErrorCode.PROVISIONED_THROUGHPUT_EXCEEDED, PROVISIONED_MESSAGE, extra);
        }
        if (limitTypes.equals(List.of(ACCOUNT_LIMIT))) {
            return new ApiException(ErrorCode.REQUEST_LIMIT_EXCEEDED, ACCOUNT_MESSAGE, extra);
        }
        String message = limitTypes.get(0).equals(MAX_ON_DEMAND) ? MAX_ON_DEMAND_MESSAGE : ON_DEMAND_MESSAGE;
        return new ApiException(ErrorCode.THROTTLING, message, throttlingExtra);
    }
}
