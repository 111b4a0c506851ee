package io.partita.server.op.table;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.server.route.RequestContext;
import io.partita.storage.StorageEngine;
import io.partita.storage.table.TableCatalog.Table;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds the table a tag operation's {@code ResourceArn} names, refusing the ARNs DynamoDB refuses, in its order and
 * words (live captures): not an ARN, another account (access denied), another region, an index's ARN, then a table
 * that does not exist (a stream's ARN included).
 */
final class TagTargets {
    private static final Pattern ARN = Pattern.compile("arn:([^:]*):([^:]*):([^:]*):([^:]*):(.*)");
    private static final Pattern TABLE = Pattern.compile("table/([a-zA-Z0-9_.-]{3,255})(/.*)?");

    private TagTargets() {}

    /** The name of the table {@code arn} names, once it is an ARN this caller may tag. */
    static String tableOf(RequestContext context, String arn) {
        if (!arn.startsWith("arn:")) {
            throw ApiException.validation(
                    "One or more parameter values were invalid: ARNs must start with 'arn:': " + arn);
        }
        Matcher m = ARN.matcher(arn);
        if (!m.matches()) {
            throw invalid(arn);
        }
        // arn:partition:service:region:account:resource
        if (!m.group(2).equals("dynamodb") || !m.group(4).equals(context.accountId())) {
            throw new ApiException(ErrorCode.ACCESS_DENIED, "Access is denied");
        }
        if (!m.group(3).equals(context.region())) {
            throw invalid(arn);
        }
        Matcher t = TABLE.matcher(m.group(5));
        if (!t.matches()) {
            throw invalid(arn);
        }
        String rest = t.group(2);
        if (rest != null && rest.startsWith("/index/")) {
            throw ApiException.validation("One or more parameter values were invalid: Invalid resource arn provided,"
                    + " only table or stream is accepted. Provided resource arn: " + arn);
        }
        if (rest != null && rest.startsWith("/backup/")) {
            throw ApiException.validation(
                    "One or more parameter values were invalid: Provided Arn is not a DynamoDB resource arn: " + arn);
        }
        if (rest != null && !rest.startsWith("/stream/")) {
            throw invalid(arn);
        }
        // A stream's ARN is accepted as a shape; no stream carries tags, so it is a resource that is not found.
        return rest == null ? t.group(1) : null;
    }

    private static ApiException invalid(String arn) {
        return ApiException.validation("Invalid TableArn: Invalid ResourceArn provided as input " + arn);
    }

    /** The table, or DynamoDB's not-found answer naming the ARN. */
    static Table require(StorageEngine storage, String name, String arn) {
        String message = "Requested resource not found: ResourceArn: " + arn + " not found";
        if (name == null) {
            throw ApiException.resourceNotFound(message);
        }
        return storage.tables().require(name, message);
    }
}
