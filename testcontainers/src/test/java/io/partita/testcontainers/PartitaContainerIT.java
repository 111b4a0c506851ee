package io.partita.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The real image in a real container, through the AWS SDK: skipped where no container engine runs (as on the machines
 * this project is built on), run wherever one does after {@code docker build -t partita .}.
 */
@Testcontainers(disabledWithoutDocker = true)
class PartitaContainerIT {
    @Container
    static final PartitaContainer partita = new PartitaContainer();

    @Test
    @SuppressWarnings("unchecked") // the SDK's varargs of Consumer<…Builder>
    void theSdkTalksToTheContainer() {
        try (DynamoDbClient ddb = partita.configure(DynamoDbClient.builder())
                .httpClient(UrlConnectionHttpClient.create())
                .build()) {
            ddb.createTable(b -> b.tableName("containers")
                    .attributeDefinitions(a -> a.attributeName("pk").attributeType("S"))
                    .keySchema(k -> k.attributeName("pk").keyType("HASH"))
                    .billingMode("PAY_PER_REQUEST"));
            ddb.putItem(b -> b.tableName("containers").item(Map.of("pk", AttributeValue.fromS("a"))));
            assertThat(ddb.getItem(b -> b.tableName("containers").key(Map.of("pk", AttributeValue.fromS("a"))))
                            .hasItem())
                    .isTrue();
        }
    }
}
