package io.partita.server.op.table;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.partita.protocol.json.DynamoJson;
import io.partita.protocol.message.ExportDescription;
import io.partita.protocol.message.ImportTableDescription;
import io.partita.protocol.model.AttributeValue;
import io.partita.storage.StorageEngine;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * Exports and imports of one account, to and from a directory that stands for S3: each bucket is a directory in it,
 * a key a path under it. An export writes DynamoDB's layout ("DynamoDB data export to Amazon S3: how it works"):
 * {@code <prefix>/AWSDynamoDB/<export id>/} holds {@code _started}, {@code manifest-summary.json}, {@code
 * manifest-files.json} (each with its {@code .md5}) and {@code data/<name>.json.gz}, one {@code {"Item": …}} line per
 * item in DynamoDB JSON. An import reads every file under a bucket's key prefix (a raw prefix, as S3's). The records
 * of both are kept in the store beside the tables ({@link StorageEngine#putRecord}), so that they outlive a restart
 * and, in cluster mode, reach every node: the next leader describes and lists them. Records of an older version,
 * kept as files in {@code transfers/} of the data directory, move into the store when the server opens.
 */
final class S3Transfers {
    /** DynamoDB's manifest version. */
    static final String MANIFEST_VERSION = "2020-06-30";

    private final Path root;
    /** Where the records of exports and imports are kept. */
    private final StorageEngine storage;

    /** An export: its description now, and the request that made it (for its ClientToken). */
    record ExportRecord(
            ExportDescription description, io.partita.protocol.message.ExportTableToPointInTimeInput request) {}

    /** An import: its description now, and the request that made it. */
    record ImportRecord(ImportTableDescription description, io.partita.protocol.message.ImportTableInput request) {}

    /** By ARN. */
    final Map<String, ExportRecord> exports = new ConcurrentHashMap<>();

    final Map<String, ImportRecord> imports = new ConcurrentHashMap<>();
    /** ClientToken to the ARN it made. */
    final Map<String, String> exportTokens = new ConcurrentHashMap<>();

    final Map<String, String> importTokens = new ConcurrentHashMap<>();

    /**
     * The transfers of {@code storage}'s account, to and from {@code root}; {@code legacy} (or null) is the directory
     * where an older version kept their records as files, which move into the store (not on a cluster follower's
     * reader, which writes nothing; the leader moves its own).
     */
    S3Transfers(Path root, StorageEngine storage, Path legacy) {
        this.root = root;
        this.storage = storage;
        if (legacy != null && !storage.reader()) {
            migrate(legacy.resolve(EXPORTS), ExportRecord.class, r -> remember(r, true));
            migrate(legacy.resolve(IMPORTS), ImportRecord.class, r -> remember(r, true));
        }
        storage.forEachRecord(EXPORTS, (id, json) -> remember(read(json, ExportRecord.class), false));
        storage.forEachRecord(IMPORTS, (id, json) -> remember(read(json, ImportRecord.class), false));
    }

    private static final String EXPORTS = "exports";
    private static final String IMPORTS = "imports";

    /** Moves the records kept as files in {@code dir} into the store: each file is deleted once its record is in. */
    private static <T> void migrate(Path dir, Class<T> type, Consumer<T> into) {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.toList()) {
                if (f.toString().endsWith(".json")) {
                    into.accept(DynamoJson.mapper().readValue(f.toFile(), type));
                }
                Files.delete(f);
            }
            Files.delete(dir);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("moving the records of exports and imports in " + dir, e);
        }
    }

    private static <T> T read(byte[] json, Class<T> type) {
        try {
            return DynamoJson.mapper().readValue(json, type);
        } catch (IOException e) {
            throw new io.partita.storage.StorageException("corrupt record of an export or import", e);
        }
    }

    /** Keeps an export's record (and, on disk, writes it). */
    void remember(ExportRecord r, boolean persist) {
        // Stored first: a record the store refused (a full disk, a cluster node that stopped leading) is not answered.
        if (persist) {
            persist(EXPORTS, r.description().exportArn(), r);
        }
        exports.put(r.description().exportArn(), r);
        exportTokens.put(r.description().clientToken(), r.description().exportArn());
    }

    void remember(ImportRecord r, boolean persist) {
        if (persist) {
            persist(IMPORTS, r.description().importArn(), r);
        }
        imports.put(r.description().importArn(), r);
        importTokens.put(r.description().clientToken(), r.description().importArn());
    }

    /** Keeps {@code record} in the store under the id its ARN ends with (exports' and imports' ids are unique). */
    private void persist(String kind, String arn, Object record) {
        try {
            storage.putRecord(
                    kind,
                    arn.substring(arn.lastIndexOf('/') + 1),
                    DynamoJson.mapper().writeValueAsBytes(record));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("cannot encode the record of " + arn, e);
        }
    }

    /** A new id, as DynamoDB's: the time in epoch milliseconds zero-padded to 14 digits, a dash, 8 hex digits. */
    static String id(long millis) {
        return String.format("%014d-%08x", millis, ThreadLocalRandom.current().nextInt());
    }

    Path bucket(String bucket) {
        return root.resolve(bucket);
    }

    /**
     * Whether keys under {@code prefix} stay inside the bucket's directory: S3 takes any characters in a key, but here
     * a key is a path, and {@code ..} segments or a leading {@code /} would reach outside the S3 directory.
     */
    boolean inside(String bucket, String prefix) {
        Path b = bucket(bucket).toAbsolutePath().normalize();
        return b.resolve(key(prefix, "AWSDynamoDB")).normalize().startsWith(b);
    }

    /** The S3 key {@code name} under {@code prefix} (none, or ending with a slash or not). */
    static String key(String prefix, String name) {
        if (prefix == null || prefix.isEmpty()) {
            return name;
        }
        return prefix.endsWith("/") ? prefix + name : prefix + "/" + name;
    }

    /** What an export wrote: its manifest's key, its items and their bytes. */
    record Written(String manifest, long items, long bytes) {}

    /** Writes {@code items} under {@code bucket}/{@code prefix} as export {@code id}; the bucket must exist. */
    Written export(
            String bucket,
            String prefix,
            String id,
            SortedMap<ByteBuffer, Map<String, AttributeValue>> items,
            ExportDescription d)
            throws IOException {
        String base = key(prefix, "AWSDynamoDB/" + id);
        Path dir = bucket(bucket).resolve(base);
        Files.createDirectories(dir.resolve("data"));
        Files.write(dir.resolve("_started"), new byte[0]);
        String dataKey = base + "/data/" + dataName() + ".json.gz";
        Path data = bucket(bucket).resolve(dataKey);
        long bytes = 0;
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(data))) {
            for (Map<String, AttributeValue> item : items.values()) {
                byte[] line = DynamoJson.encode(Map.of("Item", item));
                out.write(line);
                out.write('\n');
                bytes += io.partita.protocol.model.ItemSize.of(item);
            }
        }
        byte[] md5 = md5(Files.readAllBytes(data));
        ObjectNode file = DynamoJson.mapper().createObjectNode();
        file.put("itemCount", items.size());
        file.put("md5Checksum", Base64.getEncoder().encodeToString(md5));
        file.put("etag", HexFormat.of().formatHex(md5));
        file.put("dataFileS3Key", dataKey);
        writeWithMd5(dir.resolve("manifest-files.json"), (DynamoJson.mapper().writeValueAsString(file) + "\n"));
        String manifest = base + "/manifest-summary.json";
        ObjectNode summary = DynamoJson.mapper().createObjectNode();
        summary.put("version", MANIFEST_VERSION);
        summary.put("exportArn", d.exportArn());
        summary.put("startTime", iso(d.startTime()));
        summary.put("endTime", Instant.now().toString());
        summary.put("tableArn", d.tableArn());
        summary.put("tableId", d.tableId());
        summary.put("exportTime", iso(d.exportTime()));
        summary.put("s3Bucket", bucket);
        summary.put("s3Prefix", prefix);
        summary.put("s3SseAlgorithm", d.s3SseAlgorithm());
        summary.put("s3SseKmsKeyId", d.s3SseKmsKeyId());
        summary.put("manifestFilesS3Key", base + "/manifest-files.json");
        summary.put("billedSizeBytes", bytes);
        summary.put("itemCount", items.size());
        summary.put("outputFormat", "DYNAMODB_JSON");
        writeWithMd5(dir.resolve("manifest-summary.json"), DynamoJson.mapper().writeValueAsString(summary));
        return new Written(manifest, items.size(), bytes);
    }

    private static String iso(java.math.BigDecimal seconds) {
        return seconds == null
                ? null
                : Instant.ofEpochMilli(seconds.movePointRight(3).longValue()).toString();
    }

    private static void writeWithMd5(Path file, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        Files.write(file, bytes);
        Files.writeString(
                file.resolveSibling(file.getFileName() + ".md5"),
                Base64.getEncoder().encodeToString(md5(bytes)));
    }

    private static byte[] md5(byte[] bytes) {
        try {
            return MessageDigest.getInstance("MD5").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has MD5", e);
        }
    }

    /** A data file's name as DynamoDB's look: 26 lowercase letters and digits. */
    private static String dataName() {
        String alphabet = "abcdefghijklmnopqrstuvwxyz234567";
        StringBuilder b = new StringBuilder(26);
        for (int i = 0; i < 26; i++) {
            b.append(alphabet.charAt(ThreadLocalRandom.current().nextInt(alphabet.length())));
        }
        return b.toString();
    }

    /** The files under {@code bucket} whose keys start with {@code prefix}, in key order. */
    List<Path> objects(String bucket, String prefix) throws IOException {
        Path dir = bucket(bucket);
        List<Path> out = new ArrayList<>();
        try (Stream<Path> files = Files.walk(dir)) {
            files.filter(Files::isRegularFile)
                    .filter(f -> prefix == null || key(dir, f).startsWith(prefix))
                    .sorted()
                    .forEach(out::add);
        }
        return out;
    }

    private static String key(Path bucket, Path file) {
        return bucket.relativize(file).toString().replace('\\', '/');
    }

    /** Each line of {@code file}, gunzipped when {@code gzip}, to {@code line}. */
    static void lines(Path file, boolean gzip, Consumer<String> line) throws IOException {
        try (InputStream raw = Files.newInputStream(file);
                InputStream in = gzip ? new GZIPInputStream(raw) : raw;
                BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            for (String l = r.readLine(); l != null; l = r.readLine()) {
                if (!l.isBlank()) {
                    line.accept(l);
                }
            }
        }
    }

    /** The item of an export's line, {@code {"Item": {…}}}; null if the line is not one. */
    static Map<String, AttributeValue> item(String line) {
        try {
            JsonNode node = DynamoJson.mapper().readTree(line);
            JsonNode item = node == null ? null : node.get("Item");
            if (item == null || !item.isObject()) {
                return null;
            }
            return DynamoJson.decode(
                            DynamoJson.mapper()
                                    .writeValueAsBytes(DynamoJson.mapper()
                                            .createObjectNode()
                                            .set("Item", item)),
                            ItemLine.class)
                    .item();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** One line of a DynamoDB JSON export. */
    record ItemLine(Map<String, AttributeValue> item) {}

    /** Newest first. */
    static <T> List<T> newestFirst(Collection<T> all, java.util.function.Function<T, java.math.BigDecimal> start) {
        List<T> out = new ArrayList<>(all);
        out.sort((a, b) -> start.apply(b).compareTo(start.apply(a)));
        return out;
    }
}
