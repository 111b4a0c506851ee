package io.partita.server.cli;

import io.partita.protocol.json.DynamoJson;
import io.partita.protocol.message.CreateTableInput;
import io.partita.protocol.message.GetItemInput;
import io.partita.protocol.message.ListTablesInput;
import io.partita.protocol.message.ListTablesOutput;
import io.partita.protocol.message.PutItemInput;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Loads and links Jackson and the first request shapes on a background thread while RocksDB and Netty start, so the
 * first request does not pay for it (about 350 ms of class loading, docs/PERFORMANCE.md).
 */
final class JsonWarmUp {
    private JsonWarmUp() {}

    static void startInBackground() {
        Thread t = new Thread(JsonWarmUp::run, "partita-json-warm-up");
        t.setDaemon(true);
        t.setPriority(Thread.MIN_PRIORITY);
        t.start();
    }

    private static void run() {
        decode("{}", ListTablesInput.class);
        DynamoJson.encode(new ListTablesOutput(List.of("warm-up"), null));
        decode(
                "{\"TableName\":\"warm\",\"AttributeDefinitions\":[{\"AttributeName\":\"k\",\"AttributeType\":\"S\"}],"
                        + "\"KeySchema\":[{\"AttributeName\":\"k\",\"KeyType\":\"HASH\"}],\"BillingMode\":\"PAY_PER_REQUEST\"}",
                CreateTableInput.class);
        decode("{\"TableName\":\"warm\",\"Item\":{\"k\":{\"S\":\"v\"},\"n\":{\"N\":\"1\"}}}", PutItemInput.class);
        decode("{\"TableName\":\"warm\",\"Key\":{\"k\":{\"S\":\"v\"}}}", GetItemInput.class);
    }

    private static void decode(String json, Class<?> type) {
        DynamoJson.decode(json.getBytes(StandardCharsets.UTF_8), type);
    }
}
