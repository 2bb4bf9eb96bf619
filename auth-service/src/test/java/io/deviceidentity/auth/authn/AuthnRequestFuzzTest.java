package io.deviceidentity.auth.authn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.deviceidentity.http.InvalidRequestException;
import io.deviceidentity.http.JsonBodies;

/**
 * Any {@code POST /mqtt/authn} body is parsed the way AuthnEndpoint parses it ({@link JsonBodies#object}, then
 * {@link AuthnRequest#from}) into either a request with every field set, or a documented 400; no other exception.
 * The same inputs are replayed against the running service by {@code FuzzCorpusReplayTest}.
 */
class AuthnRequestFuzzTest {

    static final ObjectMapper JSON = new ObjectMapper();
    static final Set<String> REASONS = Set.of("malformed_json", "duplicate_field", "missing_field", "invalid_field",
            "unsupported_media_type");

    @FuzzTest(maxDuration = "30s")
    void authnBody(byte[] body) {
        try {
            AuthnRequest request = AuthnRequest.from(JsonBodies.object(JSON, body));
            assertNotNull(request.clientId());
            assertNotNull(request.password());
            assertNotNull(request.username());
            assertNotNull(request.peerHost());
            assertTrue(!request.toString().contains("password=" + request.password()) || request.password().isEmpty());
        } catch (InvalidRequestException refused) {
            wellFormedRefusal(refused, REASONS);
        }
    }

    static void wellFormedRefusal(InvalidRequestException refused, Set<String> reasons) {
        assertEquals(400, refused.status(), refused.getMessage());
        assertTrue(reasons.contains(refused.reason()), "undocumented reason " + refused.reason());
        assertNotNull(refused.getMessage());
        assertTrue(refused.getMessage().length() <= 300, "message of " + refused.getMessage().length());
    }
}
