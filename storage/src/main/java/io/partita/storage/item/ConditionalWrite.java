package io.partita.storage.item;

import io.partita.protocol.model.AttributeValue;
import java.util.Map;

/**
 * A read-modify-write of one item: a pure function from the item's current image (null when absent) to a decision.
 *
 * <p>It runs under the item's lock, after every input error has been found, so it must not fail for input reasons,
 * and it may be called more than once (a replicated write path may retry it).
 */
@FunctionalInterface
public interface ConditionalWrite {
    WriteDecision apply(Map<String, AttributeValue> current);

    /**
     * Whether {@link #apply} looks at the current image. When not, it is called with null even if the item exists,
     * and the storage engine can skip decoding the old value (it still learns its size and existence).
     */
    default boolean needsCurrent() {
        return true;
    }

    /**
     * A write that does {@code decision} whatever the item holds now: a PutItem or DeleteItem without a condition
     * or old values to return, or a BatchWriteItem request.
     */
    static ConditionalWrite blind(WriteDecision decision) {
        return new ConditionalWrite() {
            @Override
            public WriteDecision apply(Map<String, AttributeValue> current) {
                return decision;
            }

            @Override
            public boolean needsCurrent() {
                return false;
            }
        };
    }
}
