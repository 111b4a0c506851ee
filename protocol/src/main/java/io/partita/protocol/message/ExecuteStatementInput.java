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
        Boolean partitaLaterShare) {}
