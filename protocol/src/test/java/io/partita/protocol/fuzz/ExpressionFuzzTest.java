package io.partita.protocol.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.expr.ExpressionParser;

/**
 * DynamoDB's expression language under Jazzer: any condition, key condition, update or projection expression parses
 * or is refused with {@code ValidationException} — never another exception (a stack overflow on deep nesting, an index
 * out of bounds at the end of the input). Corpus in {@code ExpressionFuzzTestInputs/}; runs as {@link CodecFuzzTest}.
 */
class ExpressionFuzzTest {
    @FuzzTest(maxDuration = "20s")
    void anyExpressionParsesOrIsRefused(FuzzedDataProvider data) {
        int which = data.consumeInt(0, 3);
        String source = data.consumeRemainingAsString();
        try {
            switch (which) {
                case 0 -> ExpressionParser.parseCondition(source, "ConditionExpression");
                case 1 -> ExpressionParser.parseCondition(source, "KeyConditionExpression");
                case 2 -> ExpressionParser.parseUpdate(source);
                default -> ExpressionParser.parseProjection(source);
            }
        } catch (ApiException e) {
            Refusals.check(e, ErrorCode.VALIDATION);
        }
    }
}
