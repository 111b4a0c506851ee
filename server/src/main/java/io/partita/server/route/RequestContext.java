package io.partita.server.route;

import java.time.Clock;

/**
 * What a handler knows about the request besides its body.
 *
 * @param region the region named in the request's credential scope (open mode accepts any)
 * @param accountId the account tables belong to; open mode uses DynamoDB Local's {@code 000000000000}
 * @param host the Host header, used where DynamoDB answers its own address
 */
public record RequestContext(String requestId, String region, String accountId, String host, Clock clock) {}
