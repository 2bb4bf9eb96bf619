package io.deviceidentity.auth.fastpath;

import java.util.Base64;
import java.util.Optional;

/** The keys of the test profiles, as the service parses them. */
final class TestKeys {

    /** application.properties, %test: identity.auth.fast-path.keys. */
    static final String TEST_PROFILE_KEYS = "test-1:dGVzdC1vbmx5LWZhc3QtcGF0aC1rZXktMDAwMDAwMDAwMDAwMDAwMA==";
    static final VerifierKey CURRENT = VerifierKeys.parse(TEST_PROFILE_KEYS, Optional.empty()).current();

    private TestKeys() {
    }

    /** A fresh key that no service knows. */
    static VerifierKey unknown(String id) {
        byte[] secret = new byte[32];
        new java.security.SecureRandom().nextBytes(secret);
        return VerifierKeys.parse(id + ":" + Base64.getEncoder().encodeToString(secret), Optional.empty()).current();
    }
}
