package io.partita.protocol.message;

/** DynamoDB's {@code DescribeEndpointsOutput} shape. */
public record DescribeEndpointsOutput(java.util.List<Endpoint> endpoints) {}
