package io.partita.server.route;

/** A JSON response body and its HTTP status; or {@link #DEFERRED}, when the request must run again elsewhere. */
public record ApiResponse(int status, byte[] body, String requestId) {
    /**
     * Not an answer: the request would have waited on a thread that must not ({@code WouldBlock}) and changed
     * nothing; the caller runs it again on a thread that may wait.
     */
    public static final ApiResponse DEFERRED = new ApiResponse(0, new byte[0], null);

    public boolean deferred() {
        return this == DEFERRED;
    }
}
