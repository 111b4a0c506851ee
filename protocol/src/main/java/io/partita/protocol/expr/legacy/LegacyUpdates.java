package io.partita.protocol.expr.legacy;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.expr.ast.Operand;
import io.partita.protocol.expr.ast.Path;
import io.partita.protocol.expr.ast.UpdateExpression;
import io.partita.protocol.message.AttributeValueUpdate;
import io.partita.protocol.model.AttributeValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Translates legacy {@code AttributeUpdates} (LegacyConditionalParameters.AttributeUpdates) into an update expression:
 * PUT → SET, DELETE without a value → REMOVE, DELETE with a set → DELETE, ADD of a number or set → ADD, ADD of a list
 * → appending to the list (creating it when absent).
 */
public final class LegacyUpdates {
    private LegacyUpdates() {}

    public static UpdateExpression attributeUpdates(Map<String, AttributeValueUpdate> updates) {
        List<UpdateExpression.Set> set = new ArrayList<>();
        List<Path> remove = new ArrayList<>();
        List<UpdateExpression.Add> add = new ArrayList<>();
        List<UpdateExpression.Delete> delete = new ArrayList<>();
        for (Map.Entry<String, AttributeValueUpdate> e : updates.entrySet()) {
            Path path = Path.of(e.getKey());
            AttributeValue v = e.getValue().value();
            String action = e.getValue().action() == null ? "PUT" : e.getValue().action();
            if (v == null) {
                if (!action.equals("DELETE")) {
                    throw ApiException.invalidParameter(
                            "Only DELETE action is allowed when no attribute value is specified");
                }
                remove.add(path);
                continue;
            }
            switch (action) {
                case "PUT" -> set.add(new UpdateExpression.Set(path, new Operand.Constant(v)));
                case "DELETE" -> {
                    if (!isSet(v)) {
                        throw ApiException.invalidParameter(
                                "DELETE action with value is not supported for the type " + v.type());
                    }
                    delete.add(new UpdateExpression.Delete(path, new Operand.Constant(v)));
                }
                case "ADD" -> {
                    if (v instanceof AttributeValue.L) {
                        Operand existing = new Operand.Call(
                                "if_not_exists", List.of(path, new Operand.Constant(new AttributeValue.L(List.of()))));
                        set.add(new UpdateExpression.Set(
                                path, new Operand.Call("list_append", List.of(existing, new Operand.Constant(v)))));
                    } else if (v instanceof AttributeValue.N || isSet(v)) {
                        add.add(new UpdateExpression.Add(path, new Operand.Constant(v)));
                    } else {
                        throw ApiException.invalidParameter("ADD action is not supported for the type " + v.type());
                    }
                }
                default ->
                    throw ApiException.validation("1 validation error detected: Value '" + action
                            + "' at 'attributeUpdates." + e.getKey() + ".member.action' failed to satisfy constraint:"
                            + " Member must satisfy enum value set: [ADD, PUT, DELETE]");
            }
        }
        return new UpdateExpression(set, remove, add, delete);
    }

    private static boolean isSet(AttributeValue v) {
        return v instanceof AttributeValue.SS || v instanceof AttributeValue.NS || v instanceof AttributeValue.BS;
    }
}
