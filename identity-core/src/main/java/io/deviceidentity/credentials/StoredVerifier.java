package io.deviceidentity.credentials;

/**
 * A verifier as stored beside a credential: the id of the key it was computed under and the 32-byte HMAC. Only
 * auth-service computes and checks them; registration-service only clears them. Never logged.
 */
public record StoredVerifier(String keyId, byte[] mac) {

    @Override
    public String toString() {
        // Records print every component; the MAC must not reach a log.
        return "StoredVerifier[keyId=" + keyId + "]";
    }
}
