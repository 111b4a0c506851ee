package io.partita.server.cluster;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;

/**
 * Counters that clients increment exactly once, across failures whose outcome they cannot see: each increment carries
 * a token, added to the item's token set in the same update under the condition that the set does not hold it yet. A
 * retry of an attempt that did apply fails that condition, which tells the client it applied. So a counter must equal
 * both its token count and the increments its clients were told applied.
 */
public final class OnceCounters {
    public static final String TABLE = "counters";

    private OnceCounters() {}

    public static Map<String, AttributeValue> key(int counter) {
        return Map.of("id", AttributeValue.fromS("counter-" + counter));
    }

    /**
     * One increment of {@code counter}, through {@code clients[preferred[0]]}, moving on to the next node (and
     * remembering it in {@code preferred}) whenever one fails, for up to 15 s. Returns once it has applied.
     */
    public static void increment(DynamoDbClient[] clients, int[] preferred, int counter) {
        String token = UUID.randomUUID().toString();
        for (int attempt = 0; attempt < 300; attempt++) {
            try {
                clients[preferred[0]].updateItem(u -> u.tableName(TABLE)
                        .key(key(counter))
                        .updateExpression("SET c = if_not_exists(c, :zero) + :one ADD ids :token")
                        .conditionExpression("attribute_not_exists(ids) OR NOT contains(ids, :t)")
                        .expressionAttributeValues(Map.of(
                                ":zero", AttributeValue.fromN("0"),
                                ":one", AttributeValue.fromN("1"),
                                ":token", AttributeValue.fromSs(List.of(token)),
                                ":t", AttributeValue.fromS(token))));
                return;
            } catch (ConditionalCheckFailedException e) {
                return; // an earlier attempt applied it
            } catch (SdkException e) {
                // This node is down or between leaders: the next one, from now on.
                preferred[0] = (preferred[0] + 1) % clients.length;
                pause(50);
            }
        }
        throw new AssertionError("no node took increment " + token + " in 15 s");
    }

    /** A counter's value and its token count, read strongly consistently, retried for up to 10 s. */
    public static long[] read(DynamoDbClient ddb, int counter) {
        for (int attempt = 0; ; attempt++) {
            try {
                GetItemResponse r =
                        ddb.getItem(g -> g.tableName(TABLE).key(key(counter)).consistentRead(true));
                if (!r.hasItem()) {
                    return new long[] {0, 0};
                }
                return new long[] {
                    Long.parseLong(r.item().get("c").n()),
                    r.item().get("ids").ss().size()
                };
            } catch (SdkException e) {
                if (attempt >= 100) {
                    throw e;
                }
                pause(100);
            }
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
