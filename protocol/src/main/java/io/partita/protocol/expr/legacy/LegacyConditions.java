package io.partita.protocol.expr.legacy;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.expr.ast.Condition;
import io.partita.protocol.expr.ast.Operand;
import io.partita.protocol.expr.ast.Path;
import io.partita.protocol.message.ExpectedAttributeValue;
import io.partita.protocol.model.AttributeValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Translates the legacy {@code Expected} parameter ("Legacy conditional parameters", LegacyConditionalParameters
 * .Expected) into the same resolved condition AST that ConditionExpression produces, with the legacy API's own
 * messages for its misuse.
 */
public final class LegacyConditions {
    private LegacyConditions() {}

    /**
     * The condition, or null when {@code expected} is absent. {@code operator} is ConditionalOperator (AND by default).
     */
    public static Condition expected(Map<String, ExpectedAttributeValue> expected, String operator) {
        if (expected == null || expected.isEmpty()) {
            if (operator != null) {
                throw ApiException.validation("ConditionalOperator cannot be used without Filter or Expected");
            }
            return null;
        }
        if (operator != null && expected.size() < 2) {
            throw ApiException.validation(
                    "ConditionalOperator can only be used when Filter or Expected has two or more elements");
        }
        Condition all = null;
        for (Map.Entry<String, ExpectedAttributeValue> e : expected.entrySet()) {
            Condition c = one(e.getKey(), e.getValue());
            all = all == null ? c : "OR".equals(operator) ? new Condition.Or(all, c) : new Condition.And(all, c);
        }
        return all;
    }

    /**
     * A legacy QueryFilter, ScanFilter or KeyConditions map as one condition; null when absent. Filters may be
     * combined by ConditionalOperator (AND by default); key conditions are always AND-ed ({@code operator} null).
     */
    public static Condition conditions(
            Map<String, io.partita.protocol.message.LegacyCondition> conditions, String operator) {
        if (conditions == null || conditions.isEmpty()) {
            if (operator != null) {
                throw ApiException.validation("ConditionalOperator cannot be used without Filter or Expected");
            }
            return null;
        }
        if (operator != null && conditions.size() < 2) {
            throw ApiException.validation(
                    "ConditionalOperator can only be used when Filter or Expected has two or more elements");
        }
        Condition all = null;
        for (var e : conditions.entrySet()) {
            List<AttributeValue> args = e.getValue().attributeValueList() == null
                    ? List.of()
                    : e.getValue().attributeValueList();
            String comparison = e.getValue().comparisonOperator();
            if (comparison == null) {
                throw ApiException.validation("1 validation error detected: Value null at '" + e.getKey()
                        + ".member.comparisonOperator' failed to satisfy constraint: Member must not be null");
            }
            Condition c = comparison(e.getKey(), comparison, args);
            all = all == null ? c : "OR".equals(operator) ? new Condition.Or(all, c) : new Condition.And(all, c);
        }
        return all;
    }

    private static Condition one(String name, ExpectedAttributeValue e) {
        Path path = Path.of(name);
        if (e.comparisonOperator() == null) {
            if (e.attributeValueList() != null) {
                throw invalid("AttributeValueList can only be used with a ComparisonOperator for Attribute: " + name);
            }
            if (Boolean.FALSE.equals(e.exists())) {
                if (e.value() != null) {
                    throw invalid("Value cannot be used when Exists is false for Attribute: " + name);
                }
                return new Condition.Function("attribute_not_exists", List.of(path));
            }
            if (e.value() == null) {
                throw invalid("Value must be provided when Exists is " + (e.exists() == null ? "null" : "true")
                        + " for Attribute: " + name);
            }
            return new Condition.Compare(path, Condition.Comparator.EQ, new Operand.Constant(e.value()));
        }
        if (e.exists() != null) {
            throw invalid("Exists and ComparisonOperator cannot be used together for Attribute: " + name);
        }
        if (e.value() != null && e.attributeValueList() != null) {
            throw invalid("Value and AttributeValueList cannot be used together for Attribute: " + name);
        }
        List<AttributeValue> args = e.attributeValueList() != null
                ? e.attributeValueList()
                : e.value() != null ? List.of(e.value()) : List.of();
        return comparison(name, e.comparisonOperator(), args);
    }

    /** One legacy comparison ({@code ComparisonOperator} and its arguments), shared with QueryFilter and ScanFilter. */
    public static Condition comparison(String name, String operator, List<AttributeValue> args) {
        Path path = Path.of(name);
        List<Operand> values = new ArrayList<>(args.size());
        args.forEach(v -> values.add(new Operand.Constant(v)));
        switch (operator) {
            case "EQ", "NE", "LE", "LT", "GE", "GT" -> {
                arguments(name, operator, args, 1);
                if (!operator.equals("EQ") && !operator.equals("NE")) {
                    scalar(operator, args.get(0));
                }
                return new Condition.Compare(path, comparator(operator), values.get(0));
            }
            case "NOT_NULL" -> {
                arguments(name, operator, args, 0);
                return new Condition.Function("attribute_exists", List.of(path));
            }
            case "NULL" -> {
                arguments(name, operator, args, 0);
                return new Condition.Function("attribute_not_exists", List.of(path));
            }
            case "CONTAINS", "NOT_CONTAINS" -> {
                arguments(name, operator, args, 1);
                scalar(operator, args.get(0));
                Condition c = new Condition.Function("contains", List.of(path, values.get(0)));
                return operator.equals("CONTAINS") ? c : new Condition.Not(c);
            }
            case "BEGINS_WITH" -> {
                arguments(name, operator, args, 1);
                if (!(args.get(0) instanceof AttributeValue.S || args.get(0) instanceof AttributeValue.B)) {
                    throw notValidFor(operator, args.get(0));
                }
                return new Condition.Function("begins_with", List.of(path, values.get(0)));
            }
            case "IN" -> {
                if (args.isEmpty()) {
                    throw invalidCount(operator);
                }
                args.forEach(v -> scalar(operator, v));
                return new Condition.In(path, values);
            }
            case "BETWEEN" -> {
                arguments(name, operator, args, 2);
                scalar(operator, args.get(0));
                scalar(operator, args.get(1));
                if (!args.get(0).type().equals(args.get(1).type())) {
                    throw invalid("AttributeValues inside AttributeValueList must be of same type");
                }
                if (io.partita.protocol.expr.Values.compare(args.get(0), args.get(1)) > 0) {
                    // DynamoDB's words, quoted from its answer in Cbsoftware/pressureNET-server#78.
                    throw ApiException.validation("The BETWEEN condition was provided a range where the lower bound is"
                            + " bigger than the upper bound");
                }
                return new Condition.Between(path, values.get(0), values.get(1));
            }
            default ->
                throw ApiException.validation(
                        "1 validation error detected: Value '" + operator
                                + "' at 'comparisonOperator' failed to satisfy constraint: Member must satisfy enum value set:"
                                + " [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]");
        }
    }

    private static Condition.Comparator comparator(String operator) {
        return switch (operator) {
            case "EQ" -> Condition.Comparator.EQ;
            case "NE" -> Condition.Comparator.NE;
            case "LE" -> Condition.Comparator.LE;
            case "LT" -> Condition.Comparator.LT;
            case "GE" -> Condition.Comparator.GE;
            default -> Condition.Comparator.GT;
        };
    }

    private static void arguments(String name, String operator, List<AttributeValue> args, int expected) {
        if (args.size() == expected) {
            return;
        }
        if (args.isEmpty() && operator.equals("EQ")) {
            throw invalid(
                    "Value or AttributeValueList must be used with ComparisonOperator: EQ for Attribute: " + name);
        }
        throw invalidCount(operator);
    }

    private static ApiException invalidCount(String operator) {
        return invalid("Invalid number of argument(s) for the " + operator + " ComparisonOperator");
    }

    /**
     * The ordering operators, CONTAINS, NOT_CONTAINS and IN take an S, N or B argument: not a set, list, map, BOOL or
     * NULL ("Condition", API reference: "AttributeValueList can contain only one AttributeValue element of type
     * String, Number, or Binary").
     */
    private static void scalar(String operator, AttributeValue v) {
        boolean ok = v instanceof AttributeValue.S || v instanceof AttributeValue.N || v instanceof AttributeValue.B;
        if (!ok) {
            throw notValidFor(operator, v);
        }
    }

    private static ApiException notValidFor(String operator, AttributeValue v) {
        return invalid("ComparisonOperator " + operator + " is not valid for " + v.type() + " AttributeValue type");
    }

    private static ApiException invalid(String detail) {
        return ApiException.invalidParameter(detail);
    }
}
