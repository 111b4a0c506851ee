package io.partita.protocol.message;

import com.fasterxml.jackson.annotation.JsonProperty;

/** DynamoDB's {@code SSEDescription} shape: a table encrypted with a KMS key. */
public record SseDescription(
        @JsonProperty("Status") String status,
        @JsonProperty("SSEType") String sseType,
        @JsonProperty("KMSMasterKeyArn") String kmsMasterKeyArn) {}
