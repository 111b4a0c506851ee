package io.partita.server.op.table;

import io.partita.protocol.message.Tag;
import io.partita.protocol.validate.ConstraintSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Tag rules ("Tagging for DynamoDB": keys 1..128 characters, values 0..256). */
final class Tags {
    private Tags() {}

    static void constrain(ConstraintSet c, List<Tag> tags) {
        if (tags == null) {
            return;
        }
        for (int i = 0; i < tags.size(); i++) {
            Tag t = tags.get(i);
            String path = "tags." + (i + 1) + ".member.";
            if (t == null) {
                c.notNull("tags." + (i + 1) + ".member", null);
                continue;
            }
            c.notNull(path + "key", t.key())
                    .length(path + "key", t.key(), 1, 128)
                    .notNull(path + "value", t.value())
                    .length(path + "value", t.value(), 0, 256);
        }
    }

    static Map<String, String> toMap(List<Tag> tags) {
        Map<String, String> map = new LinkedHashMap<>();
        if (tags != null) {
            tags.forEach(t -> map.put(t.key(), t.value()));
        }
        return map;
    }
}
