package io.partita.protocol.expr;

import io.partita.protocol.expr.ast.Path;
import io.partita.protocol.expr.ast.PathPart;
import io.partita.protocol.model.AttributeValue;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Copies the parts of an item named by document paths. Maps keep the projected keys; a list keeps only the projected
 * elements, in index order (so {@code a[3]} alone yields a one-element list), as DynamoDB returns them.
 */
public final class ProjectionApplier {
    private ProjectionApplier() {}

    public static Map<String, AttributeValue> project(Map<String, AttributeValue> item, List<Path> paths) {
        MapNode root = new MapNode();
        for (Path path : paths) {
            AttributeValue v = Values.at(item, path);
            if (v != null) {
                insert(root, path.parts(), 0, v);
            }
        }
        Map<String, AttributeValue> out = new LinkedHashMap<>();
        // Keep the item's own attribute order rather than the order the paths were written in.
        for (String name : item.keySet()) {
            Node n = root.children.get(name);
            if (n != null) {
                out.put(name, n.toValue());
            }
        }
        return out;
    }

    private static void insert(Node parent, List<PathPart> parts, int i, AttributeValue leaf) {
        PathPart part = parts.get(i);
        boolean last = i == parts.size() - 1;
        if (part instanceof PathPart.Attr attr) {
            MapNode m = (MapNode) parent;
            if (last) {
                m.children.put(attr.name(), new Leaf(leaf));
            } else {
                Node child = m.children.computeIfAbsent(attr.name(), k -> containerFor(parts.get(i + 1)));
                insert(child, parts, i + 1, leaf);
            }
        } else {
            ListNode l = (ListNode) parent;
            int index = ((PathPart.Index) part).index();
            if (last) {
                l.children.put(index, new Leaf(leaf));
            } else {
                Node child = l.children.computeIfAbsent(index, k -> containerFor(parts.get(i + 1)));
                insert(child, parts, i + 1, leaf);
            }
        }
    }

    private static Node containerFor(PathPart next) {
        return next instanceof PathPart.Attr ? new MapNode() : new ListNode();
    }

    private sealed interface Node permits MapNode, ListNode, Leaf {
        AttributeValue toValue();
    }

    private static final class MapNode implements Node {
        final Map<String, Node> children = new LinkedHashMap<>();

        @Override
        public AttributeValue toValue() {
            Map<String, AttributeValue> m = new LinkedHashMap<>();
            children.forEach((k, v) -> m.put(k, v.toValue()));
            return new AttributeValue.M(m);
        }
    }

    private static final class ListNode implements Node {
        final TreeMap<Integer, Node> children = new TreeMap<>();

        @Override
        public AttributeValue toValue() {
            List<AttributeValue> l = new ArrayList<>();
            children.values().forEach(n -> l.add(n.toValue()));
            return new AttributeValue.L(l);
        }
    }

    private record Leaf(AttributeValue value) implements Node {
        @Override
        public AttributeValue toValue() {
            return value;
        }
    }
}
