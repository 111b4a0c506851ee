package io.partita.storage.stream;

import java.util.Map;

/**
 * One DynamoDB stream of a table, as the table's metadata keeps it: the current one, or a disabled one that stays
 * readable for 24 hours ("Change data capture for DynamoDB Streams": "after you disable a stream, the data in the
 * stream continues to be readable for 24 hours").
 *
 * @param label the stream's label, DynamoDB's form of its creation time ({@code 2026-12-01T13:05:00.123}): with the
 *     table's ARN it makes the stream's ARN, so a stream enabled again gets a new one
 * @param viewType {@code KEYS_ONLY}, {@code NEW_IMAGE}, {@code OLD_IMAGE} or {@code NEW_AND_OLD_IMAGES}
 * @param disabledMillis when it was disabled; null while it is the table's enabled stream
 * @param ends for a disabled stream, each shard's (partition id's) last change number that belongs to it
 */
public record StreamDefinition(
        String label, String viewType, long createdMillis, Long disabledMillis, Map<String, Long> ends) {
    public StreamDefinition {
        ends = ends == null ? Map.of() : Map.copyOf(ends);
    }

    public boolean enabled() {
        return disabledMillis == null;
    }

    /** The change-feed consumer that keeps this stream's records for 24 hours. */
    public String consumerName() {
        return "stream:" + label;
    }

    public StreamDefinition disabled(long at, Map<String, Long> lastNumbers) {
        return new StreamDefinition(label, viewType, createdMillis, at, lastNumbers);
    }
}
