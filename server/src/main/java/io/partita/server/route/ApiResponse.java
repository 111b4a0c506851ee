package io.partita.server.route;

/** A JSON response body and its HTTP status. */
public record ApiResponse(int status, byte[] body, String requestId) {}
