package io.partita.protocol.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.partita.protocol.error.ApiException;
import io.partita.protocol.error.ErrorCode;
import io.partita.protocol.partiql.PartiqlParser;
import java.util.List;

/**
 * PartiQL under Jazzer: any statement parses or is refused with {@code ValidationException}, never another exception.
 * Corpus in {@code PartiqlFuzzTestInputs/}; runs as {@link CodecFuzzTest}.
 */
class PartiqlFuzzTest {
    @FuzzTest(maxDuration = "20s")
    void anyPartiqlStatementParsesOrIsRefused(FuzzedDataProvider data) {
        String source = data.consumeRemainingAsString();
        try {
            PartiqlParser.parse(source, List.of());
        } catch (ApiException e) {
            Refusals.check(e, ErrorCode.VALIDATION);
        }
    }
}
