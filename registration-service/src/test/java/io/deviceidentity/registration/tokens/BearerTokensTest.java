package io.deviceidentity.registration.tokens;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

class BearerTokensTest {

    private final BearerTokens tokens = new BearerTokens(List.of("first-token-aaaaaaaa", " second-token-bbbbbbbb "));

    @Test
    void acceptsEachConfiguredTokenExactly() {
        assertTrue(tokens.accepts("Bearer first-token-aaaaaaaa"));
        assertTrue(tokens.accepts("Bearer second-token-bbbbbbbb"));
        assertFalse(tokens.accepts("Bearer first-token-aaaaaaa"));
        assertFalse(tokens.accepts("Bearer first-token-aaaaaaaaa"));
        assertFalse(tokens.accepts("Bearer FIRST-TOKEN-AAAAAAAA"));
        assertFalse(tokens.accepts(null));
        assertFalse(tokens.accepts("Bearer"));
    }

    @Test
    void refusesToStartWithoutAnyUsableToken() {
        assertThrows(IllegalArgumentException.class, () -> new BearerTokens(List.of(" ", "")));
    }
}
