package io.partita.conformance.support;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * JUnit 5 extension for conformance tests: injects the shared {@link DynamoDbClient} and a per-test {@link Tables}
 * whose tables are deleted after the test.
 */
public final class PartitaExtension implements ParameterResolver, AfterEachCallback {
    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(PartitaExtension.class);

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == DynamoDbClient.class || type == Tables.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        if (type == DynamoDbClient.class) {
            return Endpoint.client();
        }
        return context.getStore(NS).getOrComputeIfAbsent("tables", k -> new Tables(Endpoint.client()), Tables.class);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        Tables tables = context.getStore(NS).get("tables", Tables.class);
        if (tables != null) {
            tables.deleteAll();
        }
    }
}
