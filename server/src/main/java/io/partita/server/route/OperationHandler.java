package io.partita.server.route;

/**
 * One DynamoDB operation: the type its JSON body decodes into, and what it does with it.
 *
 * @param <I> the decoded request ({@code PutItemInput} …)
 * @param <O> the response, encoded as JSON by the dispatcher
 */
public interface OperationHandler<I, O> {
    Class<I> inputType();

    O handle(RequestContext context, I input);

    /**
     * Whether a request of this operation is bounded work that may run on an event loop: one item read or written,
     * or a table's description, served from memory and the commit log. Batches, queries and scans read or write up to
     * megabytes and run on the connection's worker. Even bounded work moves to the worker when it would wait (the
     * storage engine's {@code WouldBlock}).
     */
    default boolean boundedWork() {
        return false;
    }
}
