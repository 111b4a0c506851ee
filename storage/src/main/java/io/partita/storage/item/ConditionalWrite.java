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
}
