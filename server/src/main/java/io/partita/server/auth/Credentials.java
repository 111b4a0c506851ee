package io.partita.server.auth;

/** Who sent a request: its access key, the region it signed for, and its account. */
public record Credentials(String accessKeyId, String region, String accountId) {
    /** Open mode has one account, as DynamoDB Local does. */
    public static final String OPEN_ACCOUNT = "000000000000";
}
