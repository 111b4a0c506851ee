package io.partita.storage.item;

import com.fasterxml.jackson.core.JsonGenerator;
import io.partita.protocol.json.JsonWritable;
import io.partita.protocol.model.AttributeValue;
import java.io.IOException;
import java.util.AbstractMap;
import java.util.Map;
import java.util.Set;

/**
 * An item in its stored form, read-only. Written to a response it goes straight from the stored bytes to JSON
 * ({@link ItemCodec#writeJson}); it is decoded into a map only if something asks for its entries.
 */
public final class StoredItem extends AbstractMap<String, AttributeValue> implements JsonWritable {
    private final byte[] stored;
    private Map<String, AttributeValue> decoded;

    public StoredItem(byte[] stored) {
        this.stored = stored;
    }

    private Map<String, AttributeValue> decoded() {
        Map<String, AttributeValue> m = decoded;
        if (m == null) {
            m = ItemCodec.decode(stored);
            decoded = m;
        }
        return m;
    }

    @Override
    public void writeJson(JsonGenerator g) throws IOException {
        ItemCodec.writeJson(stored, g);
    }

    @Override
    public Set<Entry<String, AttributeValue>> entrySet() {
        return java.util.Collections.unmodifiableMap(decoded()).entrySet();
    }

    @Override
    public AttributeValue get(Object key) {
        return decoded().get(key);
    }

    @Override
    public boolean containsKey(Object key) {
        return decoded().containsKey(key);
    }

    @Override
    public int size() {
        return decoded().size();
    }
}
