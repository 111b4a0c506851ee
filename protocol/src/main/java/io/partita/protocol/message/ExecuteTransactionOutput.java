package io.partita.protocol.message;

import java.util.List;

/** DynamoDB's {@code ExecuteTransactionOutput}: one response per read; none for a write transaction. */
public record ExecuteTransactionOutput(
        List<TransactGetItemsOutput.ItemResponse> responses, List<ConsumedCapacity> consumedCapacity) {}
