package io.partita.storage.backup;

import io.partita.storage.index.IndexDefinition;
import io.partita.storage.table.TableCatalog;
import io.partita.storage.table.TableCatalog.Table;
import io.partita.storage.table.TableMetadata;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** What both restores share: the new table, its indexes ACTIVE, filled by {@code fill}, or gone if that fails. */
final class Restores {
    private Restores() {}

    /**
     * Creates {@code target} and runs {@code fill} on it. A restore that fails half way (a full disk, a store that
     * closes) drops the table it made, so that nothing of it is left half written.
     */
    static Table into(TableCatalog catalog, TableMetadata target, Consumer<Table> fill) {
        List<IndexDefinition> active = new ArrayList<>();
        for (IndexDefinition d : target.indexes()) {
            active.add(d.withStatus("ACTIVE", false));
        }
        Table t = catalog.create(target.withIndexes(active));
        try {
            fill.accept(t);
            return t;
        } catch (RuntimeException e) {
            try {
                catalog.delete(target.name());
            } catch (RuntimeException dropping) {
                e.addSuppressed(dropping);
            }
            throw e;
        }
    }
}
