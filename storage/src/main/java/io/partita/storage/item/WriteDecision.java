package io.partita.storage.item;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.model.AttributeValue;
import java.util.Map;

/** What a {@link ConditionalWrite} decided to do with an item, given its current image. */
public sealed interface WriteDecision {
    /**
     * Store {@code item} as the new image. {@code size} is its DynamoDB size if the caller has already computed it,
     * else -1.
     */
    record Put(Map<String, AttributeValue> item, long size) implements WriteDecision {
        public Put(Map<String, AttributeValue> item) {
            this(item, -1);
        }
    }

    /** Remove the item (a no-op when it does not exist). */
    record Delete() implements WriteDecision {}

    /** Change nothing and succeed: a transaction's ConditionCheck whose condition holds. */
    record Keep() implements WriteDecision {}

    /** Change nothing and answer {@code error} (a failed condition). */
    record Reject(ApiException error) implements WriteDecision {}
}
