package io.partita.server.fault;

import io.partita.protocol.message.BatchGetItemInput;
import io.partita.protocol.message.BatchWriteItemInput;
import io.partita.protocol.message.TransactGetItemsInput;
import io.partita.protocol.message.TransactWriteItemsInput;
import io.partita.server.op.TableNames;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

/** The tables a request names, for matching faults to them: its {@code TableName}, or each of a batch's tables. */
final class FaultTargets {
    private static final ClassValue<Method> TABLE_NAME = new ClassValue<>() {
        @Override
        protected Method computeValue(Class<?> type) {
            try {
                Method m = type.getMethod("tableName");
                return m.getReturnType() == String.class ? m : null;
            } catch (NoSuchMethodException e) {
                return null;
            }
        }
    };

    private FaultTargets() {}

    static List<String> tables(Object input) {
        List<String> out = new ArrayList<>();
        if (input instanceof BatchWriteItemInput b && b.requestItems() != null) {
            b.requestItems().keySet().forEach(t -> add(out, t));
        } else if (input instanceof BatchGetItemInput b && b.requestItems() != null) {
            b.requestItems().keySet().forEach(t -> add(out, t));
        } else if (input instanceof TransactWriteItemsInput t && t.transactItems() != null) {
            for (var i : t.transactItems()) {
                if (i == null) {
                    continue;
                }
                add(out, i.put() != null ? i.put().tableName() : null);
                add(out, i.update() != null ? i.update().tableName() : null);
                add(out, i.delete() != null ? i.delete().tableName() : null);
                add(out, i.conditionCheck() != null ? i.conditionCheck().tableName() : null);
            }
        } else if (input instanceof TransactGetItemsInput t && t.transactItems() != null) {
            for (var i : t.transactItems()) {
                add(out, i != null && i.get() != null ? i.get().tableName() : null);
            }
        } else if (input != null) {
            Method m = TABLE_NAME.get(input.getClass());
            if (m != null) {
                try {
                    add(out, (String) m.invoke(input));
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        return out;
    }

    private static void add(List<String> out, String nameOrArn) {
        if (nameOrArn == null) {
            return;
        }
        try {
            String name = TableNames.nameOf(nameOrArn);
            if (!out.contains(name)) {
                out.add(name);
            }
        } catch (RuntimeException malformed) {
            // Not a table's name or ARN: the handler refuses it; no fault names it.
        }
    }
}
