package io.deviceidentity.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;

/** What every refusal found by a fuzz target must look like: a 400 with a known reason and a bounded message. */
public final class FuzzAssertions {

    /** Longest message a refusal may carry: messages quote at most a bounded field name, never the input. */
    public static final int MAX_MESSAGE = 300;

    private FuzzAssertions() {
    }

    public static void wellFormedRefusal(InvalidRequestException refused, Set<String> reasons) {
        assertEquals(400, refused.status(), refused.getMessage());
        assertTrue(reasons.contains(refused.reason()), "undocumented reason " + refused.reason());
        assertNotNull(refused.getMessage());
        assertTrue(refused.getMessage().length() <= MAX_MESSAGE, "message of " + refused.getMessage().length());
    }
}
