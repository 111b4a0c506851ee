package io.partita.server.op.table;

import io.partita.storage.StorageEngine;
import io.partita.storage.table.TableCatalog.Table;

/** Finds the table a tag operation's ResourceArn names. */
final class TagTargets {
    private TagTargets() {}

    /** DynamoDB's message really says "ResourcArn" (seen in real ListTagsOfResource responses). */
    static Table require(StorageEngine storage, String name, String arn) {
        return storage.tables().require(name, "Requested resource not found: ResourcArn: " + arn + " not found");
    }
}
