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
}
