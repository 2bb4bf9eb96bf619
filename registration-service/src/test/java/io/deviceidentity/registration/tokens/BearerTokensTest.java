package io.deviceidentity.registration.tokens;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class BearerTokensTest {

    private final BearerTokens tokens = new BearerTokens(List.of("first-token-aaaaaaaa", " second-token-bbbbbbbb ",
            "ops:read+write:third-token-cccccccc", " audit : read : fourth:token-with-colons "));

    @Test
    void acceptsEachConfiguredTokenExactly() {
        assertTrue(tokens.accepts("Bearer first-token-aaaaaaaa"));
        assertTrue(tokens.accepts("Bearer second-token-bbbbbbbb"));
        assertTrue(tokens.accepts("Bearer third-token-cccccccc"));
        assertFalse(tokens.accepts("Bearer first-token-aaaaaaa"));
        assertFalse(tokens.accepts("Bearer first-token-aaaaaaaaa"));
        assertFalse(tokens.accepts("Bearer FIRST-TOKEN-AAAAAAAA"));
        assertFalse(tokens.accepts("Bearer ops:read+write:third-token-cccccccc"), "the entry is not the token");
        assertFalse(tokens.accepts(null));
        assertFalse(tokens.accepts("Bearer"));
    }

    @Test
    void aNamedEntryGivesItsIdAndOnlyItsScopesAndTheTokenIsEverythingAfterTheSecondColon() {
        Caller ops = tokens.identify("Bearer third-token-cccccccc", "10.0.0.7");
        assertEquals("ops", ops.tokenId());
        assertEquals(EnumSet.of(Scope.READ, Scope.WRITE), ops.scopes());
        assertEquals("10.0.0.7", ops.address());
        Caller audit = tokens.identify("Bearer fourth:token-with-colons", "-");
        assertEquals("audit", audit.tokenId());
        assertEquals(Set.of(Scope.READ), audit.scopes());
    }

    @Test
    void anEntryInTheFormatBeforeIdsIsNamedByItsPositionWithEveryScope() {
        Caller second = tokens.identify("Bearer second-token-bbbbbbbb", "-");
        assertEquals("token-2", second.tokenId());
        assertEquals(EnumSet.allOf(Scope.class), second.scopes());
        assertNull(tokens.identify("Bearer nothing-like-it-0000", "-"));
    }

    @Test
    void refusesToStartWithoutAnyUsableToken() {
        assertThrows(IllegalArgumentException.class, () -> new BearerTokens(List.of(" ", "")));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            one colon                 | ops:s3cret-token-value-0001                               | has one ':'
            unknown scope             | ops:read+admin:s3cret-token-value-0001                    | unknown or empty scope
            no scope                  | ops::s3cret-token-value-0001                              | unknown or empty scope
            empty token               | ops:read:                                                 | empty token
            id with a space           | o ps:read:s3cret-token-value-0001                         | its id must be
            empty id                  | :read:s3cret-token-value-0001                             | its id must be
            id starting with a dash   | -ops:read:s3cret-token-value-0001                         | its id must be
            """)
    void aMalformedEntryStopsTheStartWithAMessageThatNamesTheFormatAndNeverTheToken(String description, String entry,
            String problem) {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> new BearerTokens(List.of("good:read:another-token-0000000000", entry)));
        assertTrue(refused.getMessage().contains("entry 2 is not <id>:<scopes>:<token>"), refused.getMessage());
        assertTrue(refused.getMessage().contains(problem), refused.getMessage());
        assertFalse(refused.getMessage().contains("s3cret"), refused.getMessage());
    }

    @Test
    void twoEntriesWithOneIdOrOneTokenStopTheStart() {
        IllegalArgumentException sameId = assertThrows(IllegalArgumentException.class,
                () -> new BearerTokens(List.of("ops:read:token-one-0000000000", "ops:write:token-two-0000000000")));
        assertTrue(sameId.getMessage().contains("'ops' is used by an earlier entry"), sameId.getMessage());
        IllegalArgumentException sameToken = assertThrows(IllegalArgumentException.class,
                () -> new BearerTokens(List.of("a:read:token-one-0000000000", "b:write:token-one-0000000000")));
        assertTrue(sameToken.getMessage().contains("same as an earlier entry's"), sameToken.getMessage());
        assertFalse(sameToken.getMessage().contains("token-one"), sameToken.getMessage());
    }
}
