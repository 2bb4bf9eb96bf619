package io.deviceidentity.auth.fastpath;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;

import io.deviceidentity.auth.support.StoredRows;

/** The keys of the test profiles, as the service parses them. */
final class TestKeys {

    /** application.properties, %test: identity.auth.fast-path.keys. */
    static final String TEST_PROFILE_KEYS = "test-1:dGVzdC1vbmx5LWZhc3QtcGF0aC1rZXktMDAwMDAwMDAwMDAwMDAwMA==";
    static final VerifierKey CURRENT = VerifierKeys.parse(TEST_PROFILE_KEYS, Optional.empty()).current();

    private TestKeys() {
    }

    /**
     * Stores, behind the service's back, a verifier computed under {@code macKey} over the device's current bcrypt
     * string, tagged {@code storedKeyId} (which may differ from the key really used). Returns the MAC.
     */
    static byte[] plant(String clientId, String password, VerifierKey macKey, String storedKeyId) {
        byte[] mac = Verifiers.mac(macKey, clientId, "", password.getBytes(StandardCharsets.UTF_8),
                StoredRows.passwordHash(clientId));
        StoredRows.update("UPDATE device_credentials SET verifier_key_id = ?, verifier = ? WHERE client_id = ?",
                storedKeyId, mac, clientId);
        return mac;
    }

    /** A fresh key that no service knows. */
    static VerifierKey unknown(String id) {
        byte[] secret = new byte[32];
        new java.security.SecureRandom().nextBytes(secret);
        return VerifierKeys.parse(id + ":" + Base64.getEncoder().encodeToString(secret), Optional.empty()).current();
    }
}
