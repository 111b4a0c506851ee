package io.partita.server.route;

import io.partita.server.auth.SigV4Verifier;
import java.util.List;

/**
 * One POST to the API, as the HTTP layer hands it over. Header values may be null. {@code signed} is what strict mode
 * verifies the signature over (every header, the path and query); null for a request made inside the server, and in
 * open mode. {@code cutMark} is the value of {@link io.partita.server.op.CutTables#HEADER}, which a cluster node sets
 * on a request it sends to a group of a table cut by ranges; null when absent.
 */
public record ApiRequest(
        String target,
        String authorization,
        String amzDate,
        String contentType,
        String host,
        byte[] body,
        SigV4Verifier.Request signed,
        String cutMark) {
    public ApiRequest(
            String target, String authorization, String amzDate, String contentType, String host, byte[] body) {
        this(target, authorization, amzDate, contentType, host, body, null, null);
    }

    /** The parts of an HTTP request that SigV4 signs, over any header lookup. */
    public record Signed(String method, String path, String query, HeaderLookup headers, byte[] body)
            implements SigV4Verifier.Request {
        @Override
        public List<String> header(String lowerCaseName) {
            return headers.all(lowerCaseName);
        }
    }

    /** All values of a header, in the order sent; empty when absent. */
    @FunctionalInterface
    public interface HeaderLookup {
        List<String> all(String name);
    }
}
