package io.partita.protocol.json;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;

/**
 * A value that writes its own JSON. {@link DynamoJson} serializes it by calling {@link #writeJson}, whatever type
 * the property holding it is declared with: a stored item can go from its stored bytes to the response this way
 * without being decoded into a map first.
 */
public interface JsonWritable {
    void writeJson(JsonGenerator g) throws IOException;
}
