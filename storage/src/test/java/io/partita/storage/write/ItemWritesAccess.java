package io.partita.storage.write;

import io.partita.protocol.model.AttributeValue;
import java.util.Map;

/** The write path's item equality, for tests in other packages. */
public final class ItemWritesAccess {
    private ItemWritesAccess() {}

    public static boolean sameItem(Map<String, AttributeValue> a, Map<String, AttributeValue> b) {
        return ItemWrites.sameItem(a, b);
    }
}
