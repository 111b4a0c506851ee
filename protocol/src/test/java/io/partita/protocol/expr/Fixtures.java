package io.partita.protocol.expr;

import io.partita.protocol.json.DynamoJson;
import io.partita.protocol.message.PutItemInput;
import io.partita.protocol.model.AttributeValue;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** Items and values written as DynamoDB JSON, for expression tests. */
final class Fixtures {
    private Fixtures() {}

    /** {@code {"a": {"S": "x"}}} → an item. */
    static Map<String, AttributeValue> item(String json) {
        String body = "{\"Item\":" + json.replace('\'', '"') + "}";
        return DynamoJson.decode(body.getBytes(StandardCharsets.UTF_8), PutItemInput.class)
                .item();
    }

    static ExpressionResolver resolver(String namesJson, String valuesJson) {
        String body = "{\"ExpressionAttributeNames\":" + (namesJson == null ? "null" : namesJson.replace('\'', '"'))
                + ",\"ExpressionAttributeValues\":" + (valuesJson == null ? "null" : valuesJson.replace('\'', '"'))
                + "}";
        PutItemInput in = DynamoJson.decode(body.getBytes(StandardCharsets.UTF_8), PutItemInput.class);
        return new ExpressionResolver(in.expressionAttributeNames(), in.expressionAttributeValues());
    }
}
