package io.partita.server.op.stream;

import io.partita.protocol.error.ApiException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The tokens of DynamoDB Streams, each printed and parsed in one place (as ScyllaDB's Alternator keeps typed stream
 * tokens): the stream ARN ({@code arn:aws:dynamodb:<region>:<account>:table/<name>/stream/<label>}), the shard id
 * ({@code shardId-<20 digits>-<8 hex>}: the partition's number and a hash of the stream), the sequence number (a
 * numeric string that grows within a shard, as the SDKs and the Kinesis adapter expect: 9 digits of the partition's
 * number, then 20 of its change number), and the shard iterator (opaque to clients; it names the stream, the shard,
 * the position and when it was issued, so it can expire after 15 minutes).
 */
public final class StreamTokens {
    private static final Pattern STREAM_ARN = Pattern.compile(
            "arn:aws[a-z-]*:dynamodb:([a-z0-9-]+):(\\d{12}):table/([a-zA-Z0-9_.-]{3,255})/stream/([0-9T:.-]{1,40})");
    private static final Pattern SHARD_ID = Pattern.compile("shardId-(\\d{20})-([0-9a-f]{8})");
    private static final Pattern SEQUENCE = Pattern.compile("\\d{21,40}");
    private static final long SEQUENCE_SHARD_BASE = 100_000_000L;

    private StreamTokens() {}

    /** A parsed stream ARN: the account, the table's name and the stream's label. */
    record StreamArn(String account, String tableName, String label) {}

    static String streamArn(String tableArn, String label) {
        return tableArn + "/stream/" + label;
    }

    /** The stream an ARN names, or null if it is not a stream ARN at all. */
    static StreamArn parseStreamArn(String arn) {
        Matcher m = arn == null ? null : STREAM_ARN.matcher(arn);
        if (m == null || !m.matches()) {
            return null;
        }
        return new StreamArn(m.group(2), m.group(3), m.group(4));
    }

    static String shardId(String label, int partition) {
        return String.format("shardId-%020d-%08x", partition, label.hashCode());
    }

    /** The partition number a shard id names for the stream labelled {@code label}, or -1 if it is not one of its. */
    static int parseShardId(String label, String shardId) {
        Matcher m = shardId == null ? null : SHARD_ID.matcher(shardId);
        if (m == null || !m.matches() || !m.group(2).equals(String.format("%08x", label.hashCode()))) {
            return -1;
        }
        // Twenty digits can pass a long: anything past an int names no partition.
        String digits = m.group(1).replaceFirst("^0+(?=.)", "");
        return digits.length() > 10 || Long.parseLong(digits) > Integer.MAX_VALUE ? -1 : Integer.parseInt(digits);
    }

    static String sequenceNumber(int partition, long sequence) {
        return (SEQUENCE_SHARD_BASE + partition) + String.format("%020d", sequence);
    }

    /** The change number of a sequence number of shard {@code partition}; -1 if it is not one of that shard's. */
    static long parseSequenceNumber(int partition, String sequenceNumber) {
        if (sequenceNumber == null || !SEQUENCE.matcher(sequenceNumber).matches()) {
            return -1;
        }
        int split = sequenceNumber.length() - 20;
        if (split < 1 || !sequenceNumber.substring(0, split).equals(Long.toString(SEQUENCE_SHARD_BASE + partition))) {
            return -1;
        }
        String digits = sequenceNumber.substring(split).replaceFirst("^0+(?=.)", "");
        // Past a long, it is no change number Partita handed out.
        return digits.length() > 19 || (digits.length() == 19 && digits.compareTo("9223372036854775807") > 0)
                ? -1
                : Long.parseLong(digits);
    }

    /** A shard iterator's content: the stream, the shard, the last change number read, and when it was issued. */
    record Iterator(String tableName, String label, int partition, long after, long issuedMillis) {
        String print() {
            String text = "1|" + tableName + "|" + label + "|" + partition + "|" + after + "|" + issuedMillis;
            return Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.UTF_8));
        }
    }

    /** Parses a shard iterator; one Partita did not issue is DynamoDB's ValidationException. */
    static Iterator parseIterator(String token) {
        try {
            String text = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
            String[] p = text.split("\\|", -1);
            if (p.length != 6 || !p[0].equals("1")) {
                throw invalidIterator();
            }
            return new Iterator(p[1], p[2], Integer.parseInt(p[3]), Long.parseLong(p[4]), Long.parseLong(p[5]));
        } catch (IllegalArgumentException e) {
            throw invalidIterator();
        }
    }

    /**
     * The table a shard iterator Partita issued names, or null for one it did not issue: a cluster with a group per
     * table routes GetRecords by it (a group's iterator of a table cut by ranges too: {@link GroupIterator}).
     */
    public static String tableOfIterator(String token) {
        GroupIterator g = parseGroupIterator(token);
        if (g != null) {
            return g.tableName();
        }
        try {
            return parseIterator(token).tableName();
        } catch (ApiException e) {
            return null;
        }
    }

    /**
     * A shard iterator of a stream of a table cut by hash ranges over a cluster's Raft groups (docs/CLUSTER.md): the
     * iterator {@code inner} that the group {@code tag} names gave, with its table's name, which a node reads to send
     * GetRecords to that group with {@code inner}. A single node's handlers parse none ({@link #parseIterator}: not
     * one Partita issued there).
     */
    public record GroupIterator(String tableName, long tag, String inner) {
        public String print() {
            String text = "2|" + tableName + "|" + tag + "|" + inner;
            return Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.UTF_8));
        }
    }

    /** Parses a {@link GroupIterator}, or null for a token that is not one. */
    public static GroupIterator parseGroupIterator(String token) {
        try {
            String text = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
            String[] p = text.split("\\|", 4);
            if (p.length != 4 || !p[0].equals("2") || p[1].isEmpty() || p[3].isEmpty()) {
                return null;
            }
            return new GroupIterator(p[1], Long.parseLong(p[2]), p[3]);
        } catch (IllegalArgumentException | NullPointerException e) {
            return null;
        }
    }

    /**
     * Shard id {@code shardId} of a group's stream ({@link #shardId}) as a cluster names it over the groups of a table
     * cut by ranges: its twenty digits the group's {@code tag} (nine digits, 1 to 999,999,999) and then the partition's
     * number (eleven), so that two groups' partitions of one number are two shards; null for an id of another form.
     */
    public static String taggedShardId(String shardId, long tag) {
        Matcher m = shardId == null ? null : SHARD_ID.matcher(shardId);
        if (m == null || !m.matches() || tag < 1 || tag > 999_999_999L) {
            return null;
        }
        long partition = Long.parseLong(m.group(1));
        if (partition >= 100_000_000_000L) {
            return null;
        }
        return String.format("shardId-%09d%011d-%s", tag, partition, m.group(2));
    }

    /** A {@link #taggedShardId}'s group tag and the group's own shard id; null for an id that is not one. */
    public record TaggedShard(long tag, String shardId) {}

    public static TaggedShard parseTaggedShardId(String tagged) {
        Matcher m = tagged == null ? null : SHARD_ID.matcher(tagged);
        if (m == null || !m.matches()) {
            return null;
        }
        long tag = Long.parseLong(m.group(1).substring(0, 9));
        if (tag == 0) {
            return null;
        }
        long partition = Long.parseLong(m.group(1).substring(9));
        return new TaggedShard(tag, String.format("shardId-%020d-%s", partition, m.group(2)));
    }

    private static ApiException invalidIterator() {
        return ApiException.validation("Invalid ShardIterator");
    }
}
