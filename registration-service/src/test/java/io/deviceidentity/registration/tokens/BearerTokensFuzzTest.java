package io.deviceidentity.registration.tokens;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * {@code Authorization} header values of any shape: {@link BearerTokens#accepts} never throws, accepts only the
 * configured tokens (in any case of the scheme, surrounded by blanks), and nothing else.
 */
class BearerTokensFuzzTest {

    private static final String TOKEN = "fuzz-registration-token-0123456789";
    private static final BearerTokens TOKENS = new BearerTokens(List.of(TOKEN, "second-fuzz-token-0123456789"));

    @FuzzTest(maxDuration = "30s")
    void bearerHeader(FuzzedDataProvider data) {
        String header = data.consumeBoolean() ? null : data.consumeRemainingAsString();
        boolean accepted = TOKENS.accepts(header);
        if (header == null) {
            assertFalse(accepted);
            return;
        }
        if (accepted) {
            String presented = header.substring("Bearer ".length()).strip();
            assertTrue(presented.equals(TOKEN) || presented.equals("second-fuzz-token-0123456789"), header);
            assertTrue(header.regionMatches(true, 0, "Bearer ", 0, 7), header);
        }
        assertTrue(TOKENS.accepts("Bearer " + TOKEN));
        assertFalse(TOKENS.accepts("Bearer " + TOKEN + header.replace(" ", "").replace("\t", "") + "x"));
    }
}
