package io.partita.server.junit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.partita.server.embedded.EmbeddedPartita;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The JUnit 5 extension behind {@link WithPartita}: starts an in-memory Partita on a free port before the class (or
 * each method, with {@code perMethod}), creates the declared tables, and gives test methods and constructors, by
 * parameter type, the {@link EmbeddedPartita} (for {@code endpoint()}, {@code awaitIndexes()}, {@code reapTtlNow()}),
 * a {@link DynamoDbClient} and a {@link DynamoDbAsyncClient} pointed at it, and, when the suite has the SDK's
 * enhanced client, a {@code DynamoDbEnhancedClient} and a {@code DynamoDbEnhancedAsyncClient} over them. The clients
 * use the AWS SDK's HTTP client found on the class path and close with the server.
 *
 * <p>The AWS SDK and JUnit are the test suite's own dependencies: the server's artefact does not bring them.
 */
public final class PartitaExtension
        implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback, ParameterResolver {
    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(PartitaExtension.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Well-formed credentials of Partita's open mode. */
    private static final String AUTH = "AWS4-HMAC-SHA256 Credential=partita/20260101/us-east-1/dynamodb/aws4_request,"
            + " SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature=0";

    /** A running server and its clients, closed with the store that holds it (JUnit closes AutoCloseable values). */
    static final class Running implements AutoCloseable {
        final EmbeddedPartita partita;
        private DynamoDbClient client;
        private DynamoDbAsyncClient async;

        Running(EmbeddedPartita partita) {
            this.partita = partita;
        }

        synchronized DynamoDbClient client() {
            if (client == null) {
                client = DynamoDbClient.builder()
                        .endpointOverride(partita.endpoint())
                        .region(Region.US_EAST_1)
                        .credentialsProvider(
                                StaticCredentialsProvider.create(AwsBasicCredentials.create("partita", "partita")))
                        .build();
            }
            return client;
        }

        synchronized DynamoDbAsyncClient async() {
            if (async == null) {
                async = DynamoDbAsyncClient.builder()
                        .endpointOverride(partita.endpoint())
                        .region(Region.US_EAST_1)
                        .credentialsProvider(
                                StaticCredentialsProvider.create(AwsBasicCredentials.create("partita", "partita")))
                        .build();
            }
            return async;
        }

        @Override
        public synchronized void close() {
            if (client != null) {
                client.close();
            }
            if (async != null) {
                async.close();
            }
            partita.close();
        }
    }

    private static WithPartita settings(ExtensionContext context) {
        Class<?> c = context.getRequiredTestClass();
        while (c != null) {
            WithPartita w = c.getAnnotation(WithPartita.class);
            if (w != null) {
                return w;
            }
            c = c.getEnclosingClass();
        }
        return null;
    }

    private static boolean perMethod(ExtensionContext context) {
        WithPartita w = settings(context);
        return w != null && w.perMethod();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        if (!perMethod(context)) {
            context.getStore(NS).put(Running.class, start(context));
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        if (perMethod(context)) {
            context.getStore(NS).put(Running.class, start(context));
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        // The method's store closes its server when the method's context ends.
    }

    @Override
    public void afterAll(ExtensionContext context) {
        // The class's store closes its server when the class's context ends.
    }

    private static Running start(ExtensionContext context) {
        WithPartita w = settings(context);
        Running running = new Running(EmbeddedPartita.start(storage(w)));
        try {
            if (w != null) {
                for (String resource : w.tables()) {
                    createTables(running.partita.endpoint(), context.getRequiredTestClass(), resource);
                }
                for (WithPartita.Table t : w.declare()) {
                    declare(running.partita.endpoint(), t);
                }
            }
            return running;
        } catch (RuntimeException e) {
            running.close();
            throw e;
        }
    }

    /** The server's storage as the annotation sets it: in memory, its throughput mode and conflict rate. */
    private static io.partita.storage.StorageConfig storage(WithPartita w) {
        io.partita.storage.StorageConfig storage = io.partita.storage.StorageConfig.memory();
        if (w == null) {
            return storage;
        }
        io.partita.storage.capacity.ThroughputMode mode;
        try {
            mode = io.partita.storage.capacity.ThroughputMode.valueOf(
                    w.throughput().toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new ExtensionConfigurationException(
                    "@WithPartita(throughput) must be enforce, report or off, not " + w.throughput());
        }
        if (!(w.transactionConflicts() >= 0 && w.transactionConflicts() <= 1)) {
            throw new ExtensionConfigurationException(
                    "@WithPartita(transactionConflicts) is a share, from 0 to 1: " + w.transactionConflicts());
        }
        return storage.withCapacity(
                        io.partita.storage.capacity.CapacityConfig.defaults().withMode(mode))
                .withTransactionConflicts(new io.partita.storage.write.ConflictInjection(w.transactionConflicts(), 1));
    }

    /** Creates a declared table (and enables its TTL) as a test would, through the API. */
    private static void declare(URI endpoint, WithPartita.Table t) {
        com.fasterxml.jackson.databind.node.ObjectNode r = JSON.createObjectNode();
        r.put("TableName", t.name());
        r.put("BillingMode", "PAY_PER_REQUEST");
        var definitions = r.putArray("AttributeDefinitions");
        var keys = r.putArray("KeySchema");
        definitions.addObject().put("AttributeName", t.partitionKey()).put("AttributeType", t.partitionKeyType());
        keys.addObject().put("AttributeName", t.partitionKey()).put("KeyType", "HASH");
        if (!t.sortKey().isEmpty()) {
            definitions.addObject().put("AttributeName", t.sortKey()).put("AttributeType", t.sortKeyType());
            keys.addObject().put("AttributeName", t.sortKey()).put("KeyType", "RANGE");
        }
        send(endpoint, "CreateTable", r, "@WithPartita.Table " + t.name());
        if (!t.ttlAttribute().isEmpty()) {
            com.fasterxml.jackson.databind.node.ObjectNode ttl = JSON.createObjectNode();
            ttl.put("TableName", t.name());
            ttl.putObject("TimeToLiveSpecification").put("Enabled", true).put("AttributeName", t.ttlAttribute());
            send(endpoint, "UpdateTimeToLive", ttl, "@WithPartita.Table " + t.name());
        }
    }

    /** Sends one request of {@code operation}; anything but a 200 stops the test class with the server's answer. */
    private static void send(URI endpoint, String operation, JsonNode request, String source) {
        try {
            HttpResponse<String> r = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(endpoint)
                                    .header("Content-Type", "application/x-amz-json-1.0")
                                    .header("X-Amz-Target", "DynamoDB_20120810." + operation)
                                    .header("X-Amz-Date", "20260101T000000Z")
                                    .header("Authorization", AUTH)
                                    .POST(HttpRequest.BodyPublishers.ofString(request.toString()))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new ExtensionConfigurationException(
                        operation + " from " + source + " failed: " + r.statusCode() + " " + r.body());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ExtensionConfigurationException("interrupted creating tables", e);
        }
    }

    /** Sends each CreateTable request of {@code resource} as it is written. */
    private static void createTables(URI endpoint, Class<?> testClass, String resource) {
        String path = resource.startsWith("/") ? resource.substring(1) : resource;
        List<JsonNode> requests = new ArrayList<>();
        try (InputStream in = testClass.getClassLoader().getResourceAsStream(path)) {
            if (in == null) {
                throw new ExtensionConfigurationException("no table declaration on the class path: " + resource);
            }
            JsonNode node = JSON.readTree(in);
            if (node.isArray()) {
                node.forEach(requests::add);
            } else {
                requests.add(node);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + resource, e);
        }
        for (JsonNode request : requests) {
            send(endpoint, "CreateTable", request, resource);
        }
    }

    private static Running running(ExtensionContext context) {
        Running r = context.getStore(NS).get(Running.class, Running.class);
        if (r == null) {
            throw new ParameterResolutionException("no Partita is running for " + context.getDisplayName()
                    + " (with perMethod, a constructor cannot be given one)");
        }
        return r;
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == EmbeddedPartita.class
                || type == DynamoDbClient.class
                || type == DynamoDbAsyncClient.class
                || type.getName().equals(ENHANCED)
                || type.getName().equals(ENHANCED_ASYNC);
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        Running r = running(context);
        Class<?> type = parameter.getParameter().getType();
        if (type == EmbeddedPartita.class) {
            return r.partita;
        }
        if (type.getName().equals(ENHANCED)) {
            // By name, in a class of its own: a suite without the enhanced client never loads it.
            return EnhancedClients.sync(r.client());
        }
        if (type.getName().equals(ENHANCED_ASYNC)) {
            return EnhancedClients.async(r.async());
        }
        return type == DynamoDbClient.class ? r.client() : r.async();
    }

    private static final String ENHANCED = "software.amazon.awssdk.enhanced.dynamodb.DynamoDbEnhancedClient";
    private static final String ENHANCED_ASYNC = "software.amazon.awssdk.enhanced.dynamodb.DynamoDbEnhancedAsyncClient";

    /** The enhanced clients over the extension's clients (they hold no connections of their own). */
    private static final class EnhancedClients {
        static Object sync(DynamoDbClient client) {
            return software.amazon.awssdk.enhanced.dynamodb.DynamoDbEnhancedClient.builder()
                    .dynamoDbClient(client)
                    .build();
        }

        static Object async(DynamoDbAsyncClient client) {
            return software.amazon.awssdk.enhanced.dynamodb.DynamoDbEnhancedAsyncClient.builder()
                    .dynamoDbClient(client)
                    .build();
        }
    }
}
