package io.partita.server.route;

/** One POST to the API, as the HTTP layer hands it over. Header values may be null. */
public record ApiRequest(
        String target, String authorization, String amzDate, String contentType, String host, byte[] body) {}
