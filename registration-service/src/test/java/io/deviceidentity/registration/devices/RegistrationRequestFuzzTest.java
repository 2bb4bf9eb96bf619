package io.deviceidentity.registration.devices;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.deviceidentity.credentials.AclPlaceholders;
import io.deviceidentity.credentials.AclRule;
import io.deviceidentity.credentials.PasswordPolicy;
import io.deviceidentity.http.InvalidRequestException;
import io.deviceidentity.registration.passwords.BcryptHashFormat;

/**
 * Any {@code PUT /v1/devices/{id}} body: a request that the database and auth-service can use (valid password,
 * usable ACL rules, a username fit for ${username}), or a documented 400 whose message is bounded and never
 * quotes the password. {@code FuzzCorpusReplayTest} sends the same inputs to the running service.
 */
class RegistrationRequestFuzzTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    static final Set<String> REASONS = Set.of("malformed_json", "duplicate_field", "missing_field", "invalid_field",
            "unknown_field", "invalid_password", "invalid_acl", "invalid_password_hash", "conflicting_fields");

    private static final String CLIENT_ID = "fuzz-device";

    @FuzzTest(maxDuration = "30s")
    void registrationBody(byte[] body) {
        try {
            RegistrationRequest request = RegistrationRequest.parse(JSON, CLIENT_ID, body);
            // Whatever is accepted, auth-service can render from the registered values (no unsafe_acl later).
            assertTrue(AclPlaceholders.render(request.acl(), CLIENT_ID, request.username()).usable());
            assertTrue((request.password() == null) != (request.passwordHash() == null), "exactly one credential");
            if (request.passwordHash() != null) {
                assertNull(BcryptHashFormat.problem("password_hash", request.passwordHash()));
                assertFalse(request.toString().contains(request.passwordHash()), "toString shows the hash");
                return;
            }
            assertNull(PasswordPolicy.problem(request.password()));
            assertFalse(TextRules.hasUnpairedSurrogate(request.password()));
            assertTrue(request.acl().size() <= RegistrationRequest.MAX_ACL_RULES);
            for (AclRule rule : request.acl()) {
                assertNull(rule.problem(), rule.toString());
            }
            if (request.username() != null) {
                assertFalse(request.username().isEmpty() || TextRules.hasTopicSyntax(request.username()));
                assertTrue(TextRules.isPlainText(request.username()));
            }
            assertFalse(request.toString().contains(request.password()) && request.password().length() > 8,
                    "toString shows the password");
        } catch (InvalidRequestException refused) {
            assertEquals(400, refused.status(), refused.getMessage());
            assertTrue(REASONS.contains(refused.reason()), "undocumented reason " + refused.reason());
            assertTrue(refused.getMessage() != null && refused.getMessage().length() <= 300, refused.getMessage());
        }
    }
}
