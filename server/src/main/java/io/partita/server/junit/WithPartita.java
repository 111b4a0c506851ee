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
 * @WithPartita(tables = "tables/orders.json")
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
}
