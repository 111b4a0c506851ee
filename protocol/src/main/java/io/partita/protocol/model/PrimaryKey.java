package io.partita.protocol.model;

/** The key of one item: its partition key value and, for tables with a sort key, the sort key value. */
public record PrimaryKey(AttributeValue partition, AttributeValue sort) {}
