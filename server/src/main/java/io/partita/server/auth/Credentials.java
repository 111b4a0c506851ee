package io.partita.server.auth;

/** What a well-formed SigV4 Authorization header says about the caller. */
public record Credentials(String accessKeyId, String region) {}
