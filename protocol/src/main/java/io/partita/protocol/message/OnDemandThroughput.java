package io.partita.protocol.message;

/** DynamoDB's {@code OnDemandThroughput}: an on-demand table's request-unit maximums; -1 means none. */
public record OnDemandThroughput(Long maxReadRequestUnits, Long maxWriteRequestUnits) {}
