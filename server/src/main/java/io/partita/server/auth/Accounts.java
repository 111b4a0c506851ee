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
 * An account may have several keys (one entry each); an access key belongs to one account. In a cluster, the accounts
 * the optional {@code "clusterAdmins": ["111122223333"]} names may change the cluster's members (a signed {@code POST
 * /cluster/members}); no other account may.
 */
public final class Accounts {
    /** One access key. */
    public record Key(String accessKeyId, String secretAccessKey, String accountId) {}

    private final Map<String, Key> keys;
    private final java.util.Set<String> clusterAdmins;

    public Accounts(Map<String, Key> keys) {
        this(keys, java.util.Set.of());
    }

    /**
     * The keys, and the accounts among theirs that may change a cluster's members.
     *
     * @throws IllegalArgumentException when one of {@code clusterAdmins} has no key
     */
    public Accounts(Map<String, Key> keys, java.util.Set<String> clusterAdmins) {
        this.keys = Map.copyOf(keys);
        this.clusterAdmins = java.util.Set.copyOf(clusterAdmins);
        java.util.Set<String> known = accountIds();
        for (String admin : this.clusterAdmins) {
            if (!known.contains(admin)) {
                throw new IllegalArgumentException("clusterAdmins names account " + admin + ", which has no key");
            }
        }
    }

    /** The key with that access key id, or null. */
    public Key find(String accessKeyId) {
        return keys.get(accessKeyId);
    }

    /** A key of {@code accountId} (the first by access key id), or null for an account with none. */
    public Key keyOf(String accountId) {
        return keys.values().stream()
                .filter(k -> k.accountId().equals(accountId))
                .min(java.util.Comparator.comparing(Key::accessKeyId))
                .orElse(null);
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

    /** Whether {@code accountId}'s signed requests may change a cluster's members. */
    public boolean isClusterAdmin(String accountId) {
        return clusterAdmins.contains(accountId);
    }

    /** Whether any account may change a cluster's members. */
    public boolean hasClusterAdmins() {
        return !clusterAdmins.isEmpty();
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
        java.util.Set<String> admins = new java.util.TreeSet<>();
        JsonNode listed = root.get("clusterAdmins");
        if (listed != null) {
            if (!listed.isArray()) {
                throw new IllegalArgumentException(
                        file + ": clusterAdmins must be a list of account ids, e.g. [\"111122223333\"]");
            }
            for (JsonNode a : listed) {
                if (!a.isTextual() || !a.asText().matches("\\d{12}")) {
                    throw new IllegalArgumentException(
                            file + ": clusterAdmins lists " + a + ", not a 12-digit account id");
                }
                admins.add(a.asText());
            }
        }
        try {
            return new Accounts(keys, admins);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        }
    }

    private static String text(JsonNode a, String field, String where) {
        JsonNode v = a == null ? null : a.get(field);
        if (v == null || !v.isTextual() || v.asText().isEmpty()) {
            throw new IllegalArgumentException(where + ": " + field + " is missing or not a string");
        }
        return v.asText();
    }
}
