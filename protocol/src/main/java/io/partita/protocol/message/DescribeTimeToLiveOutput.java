package io.partita.protocol.message;

/** DynamoDB's {@code DescribeTimeToLiveOutput}. */
public record DescribeTimeToLiveOutput(Description timeToLiveDescription) {
    /** DynamoDB's {@code TimeToLiveDescription}. */
    public record Description(String timeToLiveStatus, String attributeName) {}
}
