package io.partita.protocol.message;

import io.partita.protocol.model.AttributeValue;
import java.util.List;

/**
 * DynamoDB's {@code ExecuteStatementInput}.
 *
 * @param partitaPageBytes Partita's own {@code Partita.SelectRange} only: the bytes its page may read, what is left of
 *     a walk's 1 MB over a table's groups (docs/CLUSTER.md); ExecuteStatement ignores it
 * @param partitaLaterShare {@code Partita.SelectRange} only: true for a share of a page after the page's first, which
 *     the group does not count or log as a scan again; ExecuteStatement ignores it
 * @param partitaValue {@code Partita.SelectRange} only: of a SELECT of several partition key values (an {@code IN}
 *     list or an {@code OR}), the index of the one value whose Query the group runs; null for the first share of a
 *     page, which the group answers with the values' hashes instead; ExecuteStatement ignores it
 * @param partitaHashRange {@code Partita.SelectRange} only: as a {@code Partita.ScanRange}'s ({@link ScanInput})
 * @param partitaMergeIndex {@code Partita.SelectRange} only: true for a group's page of a SELECT that reads a global
 *     secondary index by its key, whose rows are in every group: the group reads those of the items of {@code
 *     partitaHashRange} and names each ({@link ExecuteStatementOutput#partitaEntries}); ExecuteStatement ignores it
 */
public record ExecuteStatementInput(
        String statement,
        List<AttributeValue> parameters,
        Boolean consistentRead,
        String nextToken,
        String returnConsumedCapacity,
        Long limit,
        String returnValuesOnConditionCheckFailure,
        Long partitaPageBytes,
        Boolean partitaLaterShare,
        Integer partitaValue,
        String partitaHashRange,
        Boolean partitaMergeIndex) {}
