package io.partita.protocol.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.json.DynamoJson;
import io.partita.protocol.message.BatchExecuteStatementInput;
import io.partita.protocol.message.BatchGetItemInput;
import io.partita.protocol.message.BatchWriteItemInput;
import io.partita.protocol.message.CreateTableInput;
import io.partita.protocol.message.DeleteItemInput;
import io.partita.protocol.message.ExecuteStatementInput;
import io.partita.protocol.message.ExecuteTransactionInput;
import io.partita.protocol.message.GetItemInput;
import io.partita.protocol.message.PutItemInput;
import io.partita.protocol.message.QueryInput;
import io.partita.protocol.message.ScanInput;
import io.partita.protocol.message.TagResourceInput;
import io.partita.protocol.message.TransactGetItemsInput;
import io.partita.protocol.message.TransactWriteItemsInput;
import io.partita.protocol.message.UpdateItemInput;
import io.partita.protocol.message.UpdateTableInput;
import java.util.List;

/**
 * The JSON codec under Jazzer: any body, decoded as any operation's input, is an input or DynamoDB's 4xx
 * ({@code SerializationException} or {@code ValidationException}), never another exception. Without
 * {@code JAZZER_FUZZ=1} this runs the corpus in {@code CodecFuzzTestInputs/} as a regression test; with it, it fuzzes
 * (the CI's short run, .ci/run). A crash Jazzer finds is saved there and stays a regression test.
 */
class CodecFuzzTest {
    private static final List<Class<?>> INPUTS = List.of(
            PutItemInput.class,
            UpdateItemInput.class,
            GetItemInput.class,
            DeleteItemInput.class,
            QueryInput.class,
            ScanInput.class,
            BatchWriteItemInput.class,
            BatchGetItemInput.class,
            CreateTableInput.class,
            UpdateTableInput.class,
            TransactWriteItemsInput.class,
            TransactGetItemsInput.class,
            ExecuteStatementInput.class,
            BatchExecuteStatementInput.class,
            ExecuteTransactionInput.class,
            TagResourceInput.class);

    @FuzzTest(maxDuration = "20s")
    void anyBodyDecodesOrIsRefusedWithA4xx(FuzzedDataProvider data) {
        Class<?> type = INPUTS.get(data.consumeInt(0, INPUTS.size() - 1));
        byte[] body = data.consumeRemainingAsBytes();
        try {
            DynamoJson.decode(body, type);
        } catch (ApiException e) {
            Refusals.check(e, ErrorCode.SERIALIZATION, ErrorCode.VALIDATION);
        }
    }
}
