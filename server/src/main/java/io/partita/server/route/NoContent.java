package io.partita.server.route;

/**
 * The answer of an operation whose response has no body at all, not even {@code {}}: DynamoDB answers TagResource
 * and UntagResource so (ScyllaDB's alternator tests against DynamoDB, test_tags_return_empty_body).
 */
public enum NoContent {
    INSTANCE
}
