package io.partita.server.op;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.validate.ConstraintSet;
import io.partita.server.route.RequestContext;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Table names and ARNs. DynamoDB accepts a table ARN wherever it accepts a table name (the {@code TableName} member
 * is a {@code TableArn}-or-name of length 1..1024); CreateTable still takes a plain name of 3..255 characters.
 */
public final class TableNames {
    public static final Pattern NAME = Pattern.compile("[a-zA-Z0-9_.-]+");
    private static final Pattern ARN =
            Pattern.compile("arn:aws[a-z-]*:dynamodb:([a-z0-9-]+):(\\d{12}):table/([a-zA-Z0-9_.-]{3,255})");

    private TableNames() {}

    /** The constraints on a {@code TableName} member that may hold a name or an ARN. */
    public static void check(ConstraintSet constraints, String nameOrArn) {
        constraints.notNull("tableName", nameOrArn).length("tableName", nameOrArn, 1, 1024);
    }

    /** The constraints on CreateTable's {@code TableName}. */
    public static void checkNew(ConstraintSet constraints, String name) {
        constraints.notNull("tableName", name).length("tableName", name, 3, 255).pattern("tableName", name, NAME);
    }

    /**
     * The table name that {@code nameOrArn} refers to. With accounts isolated (strict mode), the ARN of another
     * account's table is refused as DynamoDB refuses a cross-account ARN that no resource-based policy allows; open
     * mode has one account and, as DynamoDB Local does, reads only the table's name from an ARN.
     */
    public static String resolve(RequestContext context, String nameOrArn) {
        Matcher m = parsed(nameOrArn);
        if (m == null) {
            return nameOrArn;
        }
        if (context.isolated() && !m.group(2).equals(context.accountId())) {
            throw notAuthorized(context, nameOrArn);
        }
        return m.group(3);
    }

    /**
     * The table name in {@code nameOrArn}, without the account check: for PartiQL's planner, whose plans are requests
     * that the item handlers then resolve with {@link #resolve}.
     */
    public static String nameOf(String nameOrArn) {
        Matcher m = parsed(nameOrArn);
        return m == null ? nameOrArn : m.group(3);
    }

    /** The parts of a table ARN (region, account, name), or null for a plain name; a malformed ARN is refused. */
    private static Matcher parsed(String nameOrArn) {
        if (!nameOrArn.startsWith("arn:")) {
            return null;
        }
        Matcher m = ARN.matcher(nameOrArn);
        if (!m.matches()) {
            throw ApiException.validation("Invalid TableArn: Invalid ResourceArn provided as input " + nameOrArn);
        }
        return m;
    }

    /**
     * IAM's refusal of a resource in another account (Partita has no resource-based policies, so it always refuses;
     * the caller is named as the account's root, the one principal Partita knows). Authorization with resource-based
     * policies: docs.aws.amazon.com/amazondynamodb/latest/developerguide/rbac-auth-iam-id-based-policies-DDB.html
     */
    public static ApiException notAuthorized(RequestContext context, String resourceArn) {
        String action = "dynamodb:" + context.operation();
        return new ApiException(
                ErrorCode.ACCESS_DENIED,
                "User: arn:aws:iam::" + context.accountId() + ":root is not authorized to perform: " + action
                        + " on resource: " + resourceArn + " because no resource-based policy allows the " + action
                        + " action");
    }

    public static String arn(RequestContext context, String tableName) {
        return "arn:aws:dynamodb:" + context.region() + ":" + context.accountId() + ":table/" + tableName;
    }
}
