package io.deviceidentity.auth.authz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.deviceidentity.credentials.AclRule;
import io.deviceidentity.http.InvalidRequestException;
import io.deviceidentity.http.JsonBodies;

/** Any {@code POST /mqtt/authz} body: a request within its documented ranges, or a documented 400. */
public class AuthzRequestFuzzTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> REASONS = Set.of("malformed_json", "duplicate_field", "missing_field",
            "invalid_field", "unsupported_media_type");

    @FuzzTest(maxDuration = "30s")
    void authzBody(byte[] body) {
        try {
            AuthzRequest request = AuthzRequest.from(JsonBodies.object(JSON, body));
            assertNotNull(request.clientId());
            assertNotNull(request.username());
            assertTrue(AclRule.PUBLISH.equals(request.action()) || AclRule.SUBSCRIBE.equals(request.action()));
            assertFalse(request.topic().isEmpty());
            assertTrue(request.qos() >= 0 && request.qos() <= 2);
        } catch (InvalidRequestException refused) {
            assertEquals(400, refused.status(), refused.getMessage());
            assertTrue(REASONS.contains(refused.reason()), "undocumented reason " + refused.reason());
            assertTrue(refused.getMessage() != null && refused.getMessage().length() <= 300);
        }
    }
}
