package io.partita.conformance;

import static io.partita.conformance.support.AttributeValues.item;
import static io.partita.conformance.support.AttributeValues.s;
import static org.assertj.core.api.Assertions.assertThat;

import io.partita.server.junit.WithPartita;
import java.util.Map;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Tag;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/** {@code @WithPartita(perMethod = true)}: every test method starts on an empty server of its own. */
@Tag("partita-only")
@WithPartita(perMethod = true, tables = "tables/orders.json")
class JUnitExtensionPerMethodTest {
    @RepeatedTest(2)
    void eachMethodStartsEmpty(DynamoDbClient ddb) {
        assertThat(ddb.scan(r -> r.tableName("customers")).count()).isZero();
        ddb.putItem(p -> p.tableName("customers").item(item("id", s("c1"))));
        assertThat(ddb.getItem(g -> g.tableName("customers").key(Map.of("id", s("c1"))))
                        .hasItem())
                .isTrue();
    }
}
