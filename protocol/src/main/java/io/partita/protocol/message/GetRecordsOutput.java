package io.partita.protocol.message;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.partita.protocol.model.AttributeValue;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;

/**
 * DynamoDB Streams' {@code GetRecordsOutput}. A record's own members are lower camel case on the wire ({@code
 * eventID}, {@code eventName}, …), unlike every other shape; its {@code dynamodb} member is PascalCase again.
 */
public record GetRecordsOutput(List<Record> records, String nextShardIterator) {
    /** DynamoDB Streams' {@code Record}. */
    public record Record(
            @JsonProperty("eventID") String eventId,
            @JsonProperty("eventName") String eventName,
            @JsonProperty("eventVersion") String eventVersion,
            @JsonProperty("eventSource") String eventSource,
            @JsonProperty("awsRegion") String awsRegion,
            @JsonProperty("dynamodb") StreamRecord dynamodb,
            @JsonProperty("userIdentity") Identity userIdentity) {}

    /** DynamoDB Streams' {@code StreamRecord}. */
    public record StreamRecord(
            BigDecimal approximateCreationDateTime,
            Map<String, AttributeValue> keys,
            Map<String, AttributeValue> newImage,
            Map<String, AttributeValue> oldImage,
            String sequenceNumber,
            Long sizeBytes,
            String streamViewType) {}

    /** DynamoDB Streams' {@code Identity}: a TTL deletion's service principal. */
    public record Identity(
            @JsonProperty("PrincipalId") String principalId,
            @JsonProperty("Type") String type) {}
}
