package io.partita.storage.index;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A table's secondary indexes at one moment: immutable, replaced whole when an index is added, changed or removed. */
public final class TableIndexes {
    public static final TableIndexes NONE = new TableIndexes(List.of());

    private final List<LiveIndex> all;
    private final List<LiveIndex> locals = new ArrayList<>();
    private final List<LiveIndex> globals = new ArrayList<>();
    private final List<IndexDefinition> definitions = new ArrayList<>();
    private final Map<String, LiveIndex> byName = new LinkedHashMap<>();

    public TableIndexes(List<LiveIndex> indexes) {
        this.all = List.copyOf(indexes);
        for (LiveIndex i : all) {
            (i.global() ? globals : locals).add(i);
            definitions.add(i.definition());
            byName.put(i.name(), i);
        }
    }

    public List<LiveIndex> all() {
        return all;
    }

    public List<LiveIndex> locals() {
        return locals;
    }

    public List<LiveIndex> globals() {
        return globals;
    }

    public List<IndexDefinition> definitions() {
        return definitions;
    }

    public boolean isEmpty() {
        return all.isEmpty();
    }

    /** The index named {@code name}, or null. */
    public LiveIndex find(String name) {
        return byName.get(name);
    }

    /** These indexes with {@code replacement} in place of the one of the same name, or added if there is none. */
    public TableIndexes with(LiveIndex replacement) {
        List<LiveIndex> next = new ArrayList<>();
        boolean replaced = false;
        for (LiveIndex i : all) {
            if (i.name().equals(replacement.name())) {
                next.add(replacement);
                replaced = true;
            } else {
                next.add(i);
            }
        }
        if (!replaced) {
            next.add(replacement);
        }
        return new TableIndexes(next);
    }

    public TableIndexes without(String name) {
        List<LiveIndex> next = new ArrayList<>(all);
        next.removeIf(i -> i.name().equals(name));
        return new TableIndexes(next);
    }
}
