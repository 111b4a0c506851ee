package io.partita.server.route;

import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.json.DynamoJson;
import io.partita.server.auth.Credentials;
import io.partita.server.auth.OpenAuthenticator;
import io.partita.server.auth.SigV4Verifier;
import io.partita.server.fault.FaultInjector;
import io.partita.server.http.ErrorBody;
import io.partita.server.http.RequestIds;
import io.partita.server.metrics.RequestMetrics;
import io.partita.storage.WouldBlock;
import java.time.Clock;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns one API request into a response: operation lookup, authentication, JSON decoding, the handler, and the
 * mapping of every failure to DynamoDB's error body. Nothing but an {@link ApiException}'s text reaches the client.
 *
 * <p>The request ID is written into this class's own log lines rather than put in the logging MDC: the MDC's put and
 * remove cost about 1 % of every request's event-loop time (docs/PERFORMANCE.md), and nothing else logs while a
 * request runs.
 */
public final class Dispatcher {
    private static final Logger log = LoggerFactory.getLogger(Dispatcher.class);
    /** Open mode has one account, as DynamoDB Local does. */
    public static final String ACCOUNT_ID = Credentials.OPEN_ACCOUNT;

    /** Which operations exist, and open mode's handlers. */
    private final OperationRegistry registry;
    /** Strict mode's handlers of each account, each over that account's own storage; null in open mode. */
    private final Function<String, OperationRegistry> registries;

    private final OpenAuthenticator authenticator = new OpenAuthenticator();
    /** Strict mode's signature check, or null in open mode. */
    private final SigV4Verifier strict;

    private final Clock clock;

    public Dispatcher(OperationRegistry registry, Clock clock) {
        this(registry, clock, null);
    }

    /** @param strict verifies every request's SigV4 signature against its keys; null for open mode */
    public Dispatcher(OperationRegistry registry, Clock clock, SigV4Verifier strict) {
        this(registry, clock, strict, null);
    }

    /**
     * @param registries in strict mode, the handlers of each account the verifier knows (accounts are isolated); null
     *     to serve every caller from {@code registry}
     */
    public Dispatcher(
            OperationRegistry registry,
            Clock clock,
            SigV4Verifier strict,
            Function<String, OperationRegistry> registries) {
        this.registry = registry;
        this.clock = clock;
        this.strict = strict;
        this.registries = registries;
    }

    /** True when requests must carry a valid signature. */
    public boolean strict() {
        return strict != null;
    }

    /** DynamoDB's words for a 503, and what Partita's is (the SDKs retry it). */
    static final String SERVICE_UNAVAILABLE_MESSAGE = "Service unavailable: the server cannot write to its disk (full,"
            + " or failing); this should be a temporary state, and writes resume once space is free.";

    /**
     * Answers {@code request}; on an event loop ({@link io.partita.storage.NonBlockingThread}) the answer may be
     * {@link ApiResponse#DEFERRED} instead, with nothing changed, when the request would have had to wait.
     */
    public ApiResponse dispatch(ApiRequest request) {
        return dispatch(request, null);
    }

    /**
     * Answers a request made inside the server (the console's hot-key simulator) as {@code caller}, whose signature
     * is not checked.
     */
    public ApiResponse dispatchAs(ApiRequest request, Credentials caller) {
        return dispatch(request, caller);
    }

    private ApiResponse dispatch(ApiRequest request, Credentials trusted) {
        String requestId = RequestIds.next();
        try {
            byte[] body = handle(request, requestId, trusted);
            return new ApiResponse(200, body, requestId);
        } catch (WouldBlock e) {
            return ApiResponse.DEFERRED;
        } catch (ApiException e) {
            log.debug("{} {} answered {}: {}", requestId, request.target(), e.code(), e.getMessage());
            return new ApiResponse(e.code().httpStatus(), ErrorBody.of(e), requestId);
        } catch (io.partita.storage.StorageUnavailableException e) {
            if (e.mayHaveBeenWritten()) {
                // It may be in the log and applied by a restart's replay: its outcome is unknown, as a 500's is.
                log.error("{} {} failed: {}", requestId, request.target(), e.getMessage());
                ApiException internal = new ApiException(ErrorCode.INTERNAL_SERVER_ERROR, "Internal server error");
                return new ApiResponse(500, ErrorBody.of(internal), requestId);
            }
            // Changed nothing. The store said why once, in its own log line; each refused request is a debug line.
            log.debug("{} {} refused: {}", requestId, request.target(), e.getMessage());
            ApiException unavailable = new ApiException(ErrorCode.SERVICE_UNAVAILABLE, SERVICE_UNAVAILABLE_MESSAGE);
            return new ApiResponse(503, ErrorBody.of(unavailable), requestId);
        } catch (RuntimeException | Error e) {
            log.error("{} {} failed", requestId, request.target(), e);
            ApiException internal = new ApiException(ErrorCode.INTERNAL_SERVER_ERROR, "Internal server error");
            return new ApiResponse(500, ErrorBody.of(internal), requestId);
        }
    }

    private byte[] handle(ApiRequest request, String requestId, Credentials trusted) {
        OperationRegistry operations = registry;
        OperationHandler<?, ?> handler = operations.find(request.target());
        if (handler == null) {
            if (registry.isKnownButUnimplemented(request.target())) {
                String op = request.target().substring(OperationRegistry.DYNAMODB_PREFIX.length());
                throw ApiException.unknownOperation(
                        "Unknown operation exception: Partita does not implement " + op + " yet");
            }
            throw ApiException.unknownOperation("Unknown operation exception");
        }
        checkContentType(request.contentType());
        Credentials credentials = trusted != null ? trusted : authenticate(request);
        if (registries != null) {
            operations = registries.apply(credentials.accountId());
            handler = operations.find(request.target());
        }
        RequestContext context = new RequestContext(
                requestId,
                credentials.region(),
                credentials.accountId(),
                request.host(),
                clock,
                request.target(),
                registries != null,
                io.partita.server.op.CutTables.marked(request.target(), request.cutMark()),
                io.partita.server.op.CutTables.share(request.target(), request.cutMark()));
        // Counted once answered, in the caller's account: a request deferred to a worker is counted there.
        RequestMetrics.Operation metrics = operations.metrics().of(request.target());
        long start = System.nanoTime();
        try {
            Object out = invoke(handler, context, request.body(), operations.faults());
            byte[] body = out == NoContent.INSTANCE ? new byte[0] : DynamoJson.encode(out);
            metrics.succeeded(System.nanoTime() - start);
            return body;
        } catch (WouldBlock e) {
            throw e;
        } catch (ApiException e) {
            // A refusal that rests on the store's state is confirmed first (a cluster's read barrier).
            if (OperationRegistry.needsConfirming(e)) {
                try {
                    operations.confirmRefusal();
                } catch (RuntimeException unsure) {
                    metrics.failedInside();
                    unsure.addSuppressed(e);
                    throw unsure; // StorageUnavailableException: a 503
                }
            }
            metrics.failed(e.code(), e.getMessage());
            throw e;
        } catch (RuntimeException | Error e) {
            metrics.failedInside();
            throw e;
        }
    }

    /** Strict mode's check of a request to the admin views or the console; in open mode, anyone may. */
    public Credentials verifyAdmin(SigV4Verifier.Request request) {
        return strict == null ? null : strict.verify(request);
    }

    private Credentials authenticate(ApiRequest request) {
        if (strict == null) {
            return authenticator.authenticate(request.authorization(), request.amzDate());
        }
        if (request.signed() == null) {
            throw new ApiException(ErrorCode.MISSING_AUTHENTICATION_TOKEN, "Request is missing Authentication Token");
        }
        return strict.verify(request.signed());
    }

    private static <I, O> Object invoke(
            OperationHandler<I, O> handler, RequestContext context, byte[] body, FaultInjector faults) {
        I input = DynamoJson.decode(body, handler.inputType());
        if (faults.active()) {
            return faults.run(
                    context,
                    context.operation(),
                    input,
                    in -> handler.handle(context, handler.inputType().cast(in)));
        }
        return handler.handle(context, input);
    }

    /** A {@code Content-Type} other than DynamoDB's JSON types answers, as DynamoDB does, an unknown operation. */
    public static void checkContentType(String contentType) {
        if (contentType == null) {
            return;
        }
        int semicolon = contentType.indexOf(';');
        String type = (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).strip();
        if (!type.equalsIgnoreCase("application/x-amz-json-1.0") && !type.equalsIgnoreCase("application/json")) {
            throw ApiException.unknownOperation("Unknown operation exception");
        }
    }
}
