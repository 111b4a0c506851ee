package io.partita.server.route;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.partita.protocol.message.ListTablesInput;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

class DispatcherTest {
    private static final String AUTHORIZATION =
            "AWS4-HMAC-SHA256 Credential=AKID/20261130/us-east-1/dynamodb/aws4_request, "
                    + "SignedHeaders=host;x-amz-date, Signature=abc";

    private final Logger logger = (Logger) LoggerFactory.getLogger(Dispatcher.class);
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();
    private Level level;

    @BeforeEach
    void capture() {
        level = logger.getLevel();
        logger.setLevel(Level.DEBUG);
        appender.start();
        logger.addAppender(appender);
    }

    @AfterEach
    void release() {
        logger.detachAppender(appender);
        logger.setLevel(level);
    }

    private static ApiResponse dispatch(OperationHandler<ListTablesInput, Object> handler) {
        return dispatch(new OperationRegistry().register("ListTables", handler));
    }

    private static ApiResponse dispatch(OperationRegistry registry) {
        Dispatcher dispatcher = new Dispatcher(registry, Clock.systemUTC());
        return dispatcher.dispatch(new ApiRequest(
                "DynamoDB_20120810.ListTables",
                AUTHORIZATION,
                "20261130T000000Z",
                "application/x-amz-json-1.0",
                "localhost",
                "{}".getBytes(StandardCharsets.UTF_8)));
    }

    private static OperationHandler<ListTablesInput, Object> failing(RuntimeException e) {
        return new OperationHandler<>() {
            @Override
            public Class<ListTablesInput> inputType() {
                return ListTablesInput.class;
            }

            @Override
            public Object handle(RequestContext context, ListTablesInput input) {
                throw e;
            }
        };
    }

    @Test
    void aFailureIsLoggedWithItsRequestIdAndAnsweredAsAnInternalError() {
        ApiResponse response = dispatch(failing(new IllegalStateException("boom")));

        assertThat(response.status()).isEqualTo(500);
        assertThat(new String(response.body(), StandardCharsets.UTF_8))
                .contains("InternalServerError")
                .doesNotContain("boom");
        assertThat(appender.list).hasSize(1);
        ILoggingEvent event = appender.list.get(0);
        assertThat(event.getLevel()).isEqualTo(Level.ERROR);
        assertThat(event.getFormattedMessage())
                .isEqualTo(response.requestId() + " DynamoDB_20120810.ListTables failed");
        assertThat(event.getThrowableProxy().getMessage()).isEqualTo("boom");
        assertThat(MDC.getCopyOfContextMap()).isNullOrEmpty();
    }

    @Test
    void anAnsweredErrorIsLoggedAtDebugWithItsRequestId() {
        ApiResponse response = dispatch(failing(
                io.partita.protocol.error.ApiException.validation("One or more parameter values were invalid")));

        assertThat(response.status()).isEqualTo(400);
        assertThat(appender.list).hasSize(1);
        assertThat(appender.list.get(0).getLevel()).isEqualTo(Level.DEBUG);
        assertThat(appender.list.get(0).getFormattedMessage())
                .startsWith(response.requestId() + " DynamoDB_20120810.ListTables answered ");
    }

    @Test
    void aRequestThatWouldWaitOnAnEventLoopIsDeferredUnloggedAndUnanswered() {
        ApiResponse response = dispatch(failing(io.partita.storage.WouldBlock.INSTANCE));

        assertThat(response.deferred()).isTrue();
        assertThat(appender.list).isEmpty();
    }

    @Test
    void aRefusalIsAnsweredOnlyOnceTheRegistrysCheckConfirmsTheStateItRestsOn() {
        java.util.concurrent.atomic.AtomicInteger checks = new java.util.concurrent.atomic.AtomicInteger();
        java.util.function.Function<RuntimeException, ApiResponse> answer = e -> dispatch(
                new OperationRegistry().register("ListTables", failing(e)).confirmRefusalsBy(checks::incrementAndGet));

        // A "not found" (a cluster's replaced leader may lack the CreateTable) passes the check.
        assertThat(answer.apply(io.partita.protocol.error.ApiException.resourceNotFound("Requested resource not found"))
                        .status())
                .isEqualTo(400);
        assertThat(checks).hasValue(1);
        // Storage confirmed a failed condition under the item's lock; a 5xx or a failure inside is no refusal.
        answer.apply(new io.partita.protocol.error.ApiException(
                io.partita.protocol.error.ErrorCode.CONDITIONAL_CHECK_FAILED, "The conditional request failed"));
        answer.apply(new io.partita.protocol.error.ApiException(
                io.partita.protocol.error.ErrorCode.INTERNAL_SERVER_ERROR, "Internal server error"));
        answer.apply(new IllegalStateException("boom"));
        assertThat(checks).hasValue(1);
        // Nor is a throttle or a conflict with a transaction under way: they rest on this node's state in memory.
        answer.apply(new io.partita.protocol.error.ApiException(
                io.partita.protocol.error.ErrorCode.THROTTLING, "Throughput exceeds the current capacity"));
        answer.apply(new io.partita.protocol.error.ApiException(
                io.partita.protocol.error.ErrorCode.TRANSACTION_CONFLICT, "Transaction is ongoing for the item"));
        assertThat(checks).hasValue(1);
        // A transaction cancelled before storage saw it (a key of the wrong shape for the table's schema) is.
        answer.apply(new io.partita.protocol.error.ApiException(
                io.partita.protocol.error.ErrorCode.TRANSACTION_CANCELED, "Transaction cancelled"));
        assertThat(checks).hasValue(2);
        // An answer that succeeds passes none.
        ApiResponse ok = dispatch(new OperationRegistry()
                .register("ListTables", new OperationHandler<ListTablesInput, Object>() {
                    @Override
                    public Class<ListTablesInput> inputType() {
                        return ListTablesInput.class;
                    }

                    @Override
                    public Object handle(RequestContext context, ListTablesInput input) {
                        return java.util.Map.of();
                    }
                })
                .confirmRefusalsBy(checks::incrementAndGet));
        assertThat(ok.status()).isEqualTo(200);
        assertThat(checks).hasValue(2);

        // A node that cannot confirm answers 503, which the SDKs retry, and not the refusal.
        ApiResponse unsure = dispatch(new OperationRegistry()
                .register("ListTables", failing(io.partita.protocol.error.ApiException.resourceNotFound("gone")))
                .confirmRefusalsBy(() -> {
                    throw new io.partita.storage.StorageUnavailableException("not the cluster's leader");
                }));
        assertThat(unsure.status()).isEqualTo(503);
        assertThat(new String(unsure.body(), StandardCharsets.UTF_8))
                .contains("ServiceUnavailable")
                .doesNotContain("ResourceNotFound");
    }
}
