package io.partita.server.auth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Strict mode's keys: each access key with its secret and the account it belongs to, read from a JSON file:
 *
 * <pre>{"accounts": [{"accountId": "111122223333", "accessKeyId": "AKIA…", "secretAccessKey": "…"}]}</pre>
 *
 * An account may have several keys (one entry each); an access key belongs to one account.
 */
public final class Accounts {
    /** One access key. */
    public record Key(String accessKeyId, String secretAccessKey, String accountId) {}

    private final Map<String, Key> keys;

    public Accounts(Map<String, Key> keys) {
        this.keys = Map.copyOf(keys);
    }

    /** The key with that access key id, or null. */
    public Key find(String accessKeyId) {
        return keys.get(accessKeyId);
    }

    /** The accounts the keys belong to, in order. */
    public java.util.SortedSet<String> accountIds() {
        java.util.TreeSet<String> ids = new java.util.TreeSet<>();
        keys.values().forEach(k -> ids.add(k.accountId()));
        return ids;
    }

    /** The keys of {@code accountId} alone. */
    public Accounts only(String accountId) {
        Map<String, Key> of = new HashMap<>();
        keys.forEach((id, key) -> {
            if (key.accountId().equals(accountId)) {
                of.put(id, key);
            }
        });
        return new Accounts(of);
    }

    public int size() {
        return keys.size();
    }

    /** Reads and checks a credentials file. */
    public static Accounts load(Path file) throws IOException {
        JsonNode root = new ObjectMapper().readTree(Files.readAllBytes(file));
        JsonNode list = root == null ? null : root.get("accounts");
        if (list == null || !list.isArray() || list.isEmpty()) {
            throw new IllegalArgumentException(file + ": expected {\"accounts\": [{\"accountId\": …,"
                    + " \"accessKeyId\": …, \"secretAccessKey\": …}, …]} with at least one entry");
        }
        Map<String, Key> keys = new HashMap<>();
        int i = 0;
        for (JsonNode a : list) {
            String where = file + ": accounts[" + i++ + "]";
            String account = text(a, "accountId", where);
            String id = text(a, "accessKeyId", where);
            String secret = text(a, "secretAccessKey", where);
            if (!account.matches("\\d{12}")) {
                throw new IllegalArgumentException(where + ": accountId must be 12 digits, as AWS account ids are");
            }
            if (!id.matches("[A-Za-z0-9_.-]{1,128}")) {
                throw new IllegalArgumentException(
                        where + ": accessKeyId must be 1 to 128 of A-Z, a-z, 0-9, '_', '.', '-'");
            }
            if (keys.put(id, new Key(id, secret, account)) != null) {
                throw new IllegalArgumentException(where + ": access key " + id + " is listed twice");
            }
        }
        return new Accounts(keys);
    }

    private static String text(JsonNode a, String field, String where) {
        JsonNode v = a == null ? null : a.get(field);
        if (v == null || !v.isTextual() || v.asText().isEmpty()) {
            throw new IllegalArgumentException(where + ": " + field + " is missing or not a string");
        }
        return v.asText();
    }
}
