package io.partita.server.cluster;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The tables a request names, for a cluster with a group per table ({@code --cluster-table-groups}, docs/CLUSTER.md):
 * read from its {@code X-Amz-Target} and its JSON body, the fields each operation names its table by, without building
 * the rest of the body. A body that is not JSON, or lacks the field, names none: the account's own group answers it,
 * and its error.
 *
 * @param kind what the request does with its tables
 * @param tables the tables it names, in the order it names them, without repeats
 */
record TableRoute(Kind kind, List<String> tables) {
    enum Kind {
        /** Names no table: the account's own group answers it (ListTables, DescribeLimits, an unknown operation). */
        NONE,
        /** Names tables that exist, or ought to. */
        TABLES,
        /** Makes a table of the name it gives: CreateTable, ImportTable. */
        CREATES,
        /** Makes a table from another's data: the restores, which name the source table. */
        RESTORES,
        /** Lists over every table of the account: ListBackups (with a table or not), ListExports and the like. */
        ACCOUNT_WIDE
    }

    static final TableRoute NONE = new TableRoute(Kind.NONE, List.of());

    /**
     * As the server's own parser ({@code DynamoJson}): attribute names up to DynamoDB's 65,535 bytes pass, which
     * Jackson's default limit on names (50,000 characters) would refuse, and a request would go to the wrong group.
     */
    private static final JsonFactory JSON = JsonFactory.builder()
            .streamReadConstraints(com.fasterxml.jackson.core.StreamReadConstraints.builder()
                    .maxNameLength(16 * 1024 * 1024)
                    .build())
            .build();

    private static final String DYNAMODB = "DynamoDB_20120810.";
    private static final String STREAMS = "DynamoDBStreams_20120810.";

    /** Operations that name their table by {@code TableName}. */
    private static final Set<String> BY_NAME = Set.of(
            "DeleteTable",
            "DescribeTable",
            "UpdateTable",
            "PutItem",
            "GetItem",
            "UpdateItem",
            "DeleteItem",
            "Query",
            "Scan",
            "DescribeTimeToLive",
            "UpdateTimeToLive",
            "CreateBackup",
            "DescribeContinuousBackups",
            "UpdateContinuousBackups",
            "DescribeContributorInsights",
            "UpdateContributorInsights",
            "DescribeKinesisStreamingDestination",
            "EnableKinesisStreamingDestination",
            "DisableKinesisStreamingDestination",
            "UpdateKinesisStreamingDestination",
            "DescribeTableReplicaAutoScaling",
            "UpdateTableReplicaAutoScaling",
            "PutMovedItems");

    /** Operations that list over every table of the account unless given one (by name or ARN). */
    private static final Set<String> LISTS =
            Set.of("ListBackups", "ListContributorInsights", "ListExports", "ListImports");

    /** Operations that name their table by an ARN field, and that field. */
    private static final java.util.Map<String, String> BY_ARN = java.util.Map.ofEntries(
            java.util.Map.entry("ExportTableToPointInTime", "TableArn"),
            java.util.Map.entry("DescribeExport", "ExportArn"),
            java.util.Map.entry("DescribeImport", "ImportArn"),
            java.util.Map.entry("DescribeBackup", "BackupArn"),
            java.util.Map.entry("DeleteBackup", "BackupArn"),
            java.util.Map.entry("TagResource", "ResourceArn"),
            java.util.Map.entry("UntagResource", "ResourceArn"),
            java.util.Map.entry("ListTagsOfResource", "ResourceArn"),
            java.util.Map.entry("PutResourcePolicy", "ResourceArn"),
            java.util.Map.entry("GetResourcePolicy", "ResourceArn"),
            java.util.Map.entry("DeleteResourcePolicy", "ResourceArn"));

    /**
     * What the request with {@code X-Amz-Target} {@code target} and JSON {@code body} names.
     *
     * @throws IOException only from reading {@code body}; a body that is not JSON names no table
     */
    static TableRoute of(String target, InputStream body) throws IOException {
        if (target == null) {
            return NONE;
        }
        String operation;
        if (target.equals(BatchSpread.CHECK)) {
            operation = "BatchWriteItem"; // a share of a batch over several groups, which its group checks
        } else if (target.equals(TransactSpread.HOLD) || target.equals(TransactSpread.RELEASE)) {
            operation = "TransactGetItems"; // a group's part of a read over several groups
        } else if (TransactWriteSpread.PARTS.contains(target)) {
            operation = "TransactWriteItems"; // a group's part of a write transaction over several groups
        } else if (target.equals(TransactWriteSpread.PREPARE_STATEMENTS)) {
            operation = "ExecuteTransaction";
        } else if (target.equals(TransactSpread.HOLD_STATEMENTS) || target.equals(TransactSpread.RELEASE_STATEMENTS)) {
            operation = "ExecuteTransaction";
        } else if (target.equals(RangeSpread.SCAN_RANGE)) {
            operation = "Scan"; // a group's page of a Scan over a table's hash ranges
        } else if (target.equals(RangeMove.PUT_MOVED)
                || target.equals(RangeMove.OPEN_MOVED)
                || target.equals(RangeMove.PUT_TOKENS)
                || target.equals(RangeMove.AWAIT_INDEXES)
                || target.equals(RangeMove.INDEX_LAG)
                || target.equals(RangeMove.CLEAR_MOVED)
                || target.equals(ClusterMember.CHARGE_TABLE)) {
            // A range move's page of items, sent to the group that takes the range over; or a request of a node to
            // one of a table's groups (its indexes, what the other groups consumed).
            operation = "PutMovedItems";
        } else if (target.equals(RangeSpread.QUERY_INDEX_RANGE)) {
            operation = "Query"; // a group's page of a Query of a global secondary index over a table's hash ranges
        } else if (target.equals(RangeSpread.SELECT_RANGE)) {
            operation = "ExecuteStatement"; // a group's page of a SELECT over a table's hash ranges
        } else if (target.startsWith(DYNAMODB)) {
            operation = target.substring(DYNAMODB.length());
        } else if (target.startsWith(STREAMS)) {
            operation = target.substring(STREAMS.length());
        } else {
            return NONE;
        }
        try (JsonParser p = JSON.createParser(body)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return NONE;
            }
            return read(operation, p);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            return NONE; // the account's group answers the body's error
        }
    }

    private static TableRoute read(String operation, JsonParser p) throws IOException {
        List<String> tables = new ArrayList<>();
        Kind kind = Kind.TABLES;
        switch (operation) {
            case "CreateTable" -> {
                kind = Kind.CREATES;
                add(tables, topText(p, "TableName"));
            }
            case "ImportTable" -> {
                kind = Kind.CREATES;
                add(tables, inObject(p, "TableCreationParameters", "TableName"));
            }
            case "RestoreTableFromBackup" -> {
                kind = Kind.RESTORES;
                add(tables, tableOfArn(topText(p, "BackupArn")));
            }
            case "RestoreTableToPointInTime" -> {
                kind = Kind.RESTORES;
                java.util.Map<String, String> fields = topTexts(p, Set.of("SourceTableName", "SourceTableArn"));
                String name = fields.get("SourceTableName");
                add(tables, name != null ? name : tableOfArn(fields.get("SourceTableArn")));
            }
            case "ListStreams" -> add(tables, topText(p, "TableName"));
            case "DescribeStream", "GetShardIterator" -> add(tables, tableOfArn(topText(p, "StreamArn")));
            case "GetRecords" -> {
                String iterator = topText(p, "ShardIterator");
                add(
                        tables,
                        iterator == null ? null : io.partita.server.op.stream.StreamTokens.tableOfIterator(iterator));
            }
            case "BatchGetItem", "BatchWriteItem" -> fieldNames(p, "RequestItems", tables);
            case "TransactGetItems", "TransactWriteItems" -> transactTables(p, tables);
            case "ExecuteStatement" -> add(tables, statementTable(topText(p, "Statement")));
            case "BatchExecuteStatement" -> statements(p, "Statements", tables);
            case "ExecuteTransaction" -> statements(p, "TransactStatements", tables);
            default -> {
                if (BY_NAME.contains(operation)) {
                    add(tables, topText(p, "TableName"));
                } else if (BY_ARN.containsKey(operation)) {
                    add(tables, tableOfArn(topText(p, BY_ARN.get(operation))));
                } else if (LISTS.contains(operation)) {
                    java.util.Map<String, String> fields = topTexts(p, Set.of("TableName", "TableArn"));
                    String name = fields.get("TableName");
                    add(tables, name != null ? name : tableOfArn(fields.get("TableArn")));
                    // A table's backups may be in groups other than its own now: a backup of a table cut by ranges is
                    // a part in each of its groups, and a table deleted keeps its backups where they were when its
                    // name is made anew. Its name is a filter of the whole list.
                    if (tables.isEmpty() || operation.equals("ListBackups")) {
                        return new TableRoute(Kind.ACCOUNT_WIDE, List.of());
                    }
                } else {
                    return NONE; // ListTables, DescribeLimits, DescribeEndpoints, and any operation Partita lacks
                }
            }
        }
        // ListStreams with no table lists every stream of the account.
        if (tables.isEmpty() && operation.equals("ListStreams")) {
            return new TableRoute(Kind.ACCOUNT_WIDE, List.of());
        }
        return tables.isEmpty() ? NONE : new TableRoute(kind, List.copyOf(tables));
    }

    /** Adds {@code table}, a name or a table's ARN (DynamoDB takes either wherever it takes a table's name). */
    private static void add(List<String> tables, String table) {
        if (table != null && table.startsWith("arn:")) {
            table = tableOfArn(table);
        }
        if (table != null && !table.isEmpty() && !tables.contains(table)) {
            tables.add(table);
        }
    }

    /** The text of the body's top-level field {@code name}, or null. */
    private static String topText(JsonParser p, String name) throws IOException {
        return topTexts(p, Set.of(name)).get(name);
    }

    /** The texts of the body's top-level fields of {@code names} that are strings. */
    private static java.util.Map<String, String> topTexts(JsonParser p, Set<String> names) throws IOException {
        java.util.Map<String, String> out = new java.util.HashMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            if (names.contains(field) && value == JsonToken.VALUE_STRING) {
                out.put(field, p.getText()); // a field given twice: the last, as the server's parser takes it
            } else {
                p.skipChildren();
            }
        }
        return out;
    }

    /** The text of field {@code name} of the body's top-level object {@code object}, or null. */
    private static String inObject(JsonParser p, String object, String name) throws IOException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            if (field.equals(object) && value == JsonToken.START_OBJECT) {
                return topText(p, name);
            }
            p.skipChildren();
        }
        return null;
    }

    /** The field names of the body's top-level object {@code object} (BatchGetItem's tables). */
    private static void fieldNames(JsonParser p, String object, List<String> tables) throws IOException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            if (field.equals(object) && value == JsonToken.START_OBJECT) {
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    add(tables, p.currentName());
                    p.nextToken();
                    p.skipChildren();
                }
            } else {
                p.skipChildren();
            }
        }
    }

    /** The {@code TableName} of each action of {@code TransactItems} (each action an object of one member). */
    private static void transactTables(JsonParser p, List<String> tables) throws IOException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            if (!field.equals("TransactItems") || value != JsonToken.START_ARRAY) {
                p.skipChildren();
                continue;
            }
            while (p.nextToken() == JsonToken.START_OBJECT) {
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    if (p.nextToken() == JsonToken.START_OBJECT) {
                        add(tables, topText(p, "TableName"));
                    } else {
                        p.skipChildren();
                    }
                }
            }
        }
    }

    /** The table of each {@code Statement} in the body's top-level array {@code array}. */
    private static void statements(JsonParser p, String array, List<String> tables) throws IOException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            if (!field.equals(array) || value != JsonToken.START_ARRAY) {
                p.skipChildren();
                continue;
            }
            while (p.nextToken() == JsonToken.START_OBJECT) {
                add(tables, statementTable(topText(p, "Statement")));
            }
        }
    }

    /** The table a PartiQL statement names, or null when a parse finds none. */
    static String statementTable(String statement) {
        return statement == null ? null : io.partita.protocol.partiql.PartiqlParser.tableOf(statement);
    }

    /**
     * The table an ARN names ({@code arn:aws:dynamodb:<region>:<account>:table/<name>}, and what follows it: a stream,
     * a backup, an export, an import, an index), or null for one that names none.
     */
    static String tableOfArn(String arn) {
        if (arn == null || !arn.startsWith("arn:")) {
            return null;
        }
        int at = arn.indexOf(":table/");
        if (at < 0) {
            return null;
        }
        int from = at + ":table/".length();
        int end = arn.indexOf('/', from);
        String name = end < 0 ? arn.substring(from) : arn.substring(from, end);
        return name.isEmpty() ? null : name;
    }
}
