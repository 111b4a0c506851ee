package io.partita.protocol.message;

import com.fasterxml.jackson.databind.JsonNode;

/** DynamoDB's {@code ListBackupsInput}; the time bounds are epoch seconds, whole or not, as the SDKs send them. */
public record ListBackupsInput(
        String tableName,
        Integer limit,
        JsonNode timeRangeLowerBound,
        JsonNode timeRangeUpperBound,
        String exclusiveStartBackupArn,
        String backupType) {}
