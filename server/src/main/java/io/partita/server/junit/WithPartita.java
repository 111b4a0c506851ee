package io.partita.server.junit;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An embedded, in-memory Partita on a free port for a JUnit 5 test class; see {@link PartitaExtension} for what a test
 * method can be given.
 *
 * <pre>{@code
 * @WithPartita(
 *         tables = "tables/orders.json",
 *         declare = @WithPartita.Table(name = "sessions", partitionKey = "id", ttlAttribute = "expires"),
 *         throughput = "off")
 * class OrdersTest {
 *     @Test
 *     void ordersAreStored(DynamoDbClient ddb, EmbeddedPartita partita) { … }
 * }
 * }</pre>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@ExtendWith(PartitaExtension.class)
public @interface WithPartita {
    /** A new server for every test method (each starts empty) instead of one for the whole class. */
    boolean perMethod() default false;

    /**
     * Class-path resources, each a CreateTable request as DynamoDB's JSON (one object, or an array of them), created
     * on every new server before the tests run.
     */
    String[] tables() default {};

    /** Tables declared here rather than in a file, created after {@link #tables()}'s, on demand. */
    Table[] declare() default {};

    /** The throughput mode ({@code --throughput}): {@code enforce} (DynamoDB's limits), {@code report} or {@code off}. */
    String throughput() default "enforce";

    /** The share (0 to 1) of transactions cancelled with {@code TransactionConflict} on purpose ({@code --transaction-conflicts}). */
    double transactionConflicts() default 0;

    /** A table declared on the test class: an on-demand table with this key, and TTL on an attribute if named. */
    @Target({})
    @Retention(RetentionPolicy.RUNTIME)
    @interface Table {
        String name();

        String partitionKey();

        /** {@code S}, {@code N} or {@code B}. */
        String partitionKeyType() default "S";

        /** None when empty. */
        String sortKey() default "";

        String sortKeyType() default "S";

        /** TTL is enabled on this attribute when it is not empty. */
        String ttlAttribute() default "";
    }
}
