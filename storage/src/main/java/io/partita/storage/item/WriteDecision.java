package io.partita.storage.item;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.model.AttributeValue;
import java.util.Map;

/** What a {@link ConditionalWrite} decided to do with an item, given its current image. */
public sealed interface WriteDecision {
    /** Store {@code item} as the new image. */
    record Put(Map<String, AttributeValue> item) implements WriteDecision {}

    /** Remove the item (a no-op when it does not exist). */
    record Delete() implements WriteDecision {}

    /** Change nothing and answer {@code error} (a failed condition). */
    record Reject(ApiException error) implements WriteDecision {}
}
