package io.deviceidentity.auth.fastpath;

import javax.crypto.spec.SecretKeySpec;

/** One fast-path key: its id (stored beside each verifier) and the HMAC key. Its toString never shows the key. */
public record VerifierKey(String id, SecretKeySpec secret) {

    @Override
    public String toString() {
        return "VerifierKey[id=" + id + "]";
    }
}
