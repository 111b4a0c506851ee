package io.partita.protocol.message;

/**
 * DynamoDB's {@code StreamSpecification}.
 *
 * @param partitaStreamLabel Partita's own: the label a cluster node gives the stream an UpdateTable or CreateTable
 *     enables on one of the groups of a table cut by hash ranges, the label the table's first group gave its stream, so
 *     that every group's is one stream (docs/CLUSTER.md); a store that holds the whole table ignores it
 */
public record StreamSpecification(Boolean streamEnabled, String streamViewType, String partitaStreamLabel) {}
