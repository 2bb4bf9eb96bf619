package io.deviceidentity.auth.fastpath;

import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

import javax.crypto.spec.SecretKeySpec;

/**
 * The fast path's key set from configuration ({@code id:base64key,...}), and which one new verifiers are written
 * under. Several keys exist at once only during a rotation (docs/security.md). Errors name the offending id or
 * position, never a key.
 */
public final class VerifierKeys {

    /** Shorter keys would make the HMAC weaker than the SHA-256 it is built on. */
    public static final int MIN_KEY_BYTES = 32;
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9._-]{1,32}");

    private final Map<String, VerifierKey> byId;
    private final VerifierKey current;

    private VerifierKeys(Map<String, VerifierKey> byId, VerifierKey current) {
        this.byId = byId;
        this.current = current;
    }

    /** Throws {@link IllegalArgumentException} with a message an operator can act on. */
    public static VerifierKeys parse(String keys, Optional<String> currentId) {
        Map<String, VerifierKey> byId = new LinkedHashMap<>();
        String[] entries = keys.split(",", -1);
        for (int i = 0; i < entries.length; i++) {
            String entry = entries[i].trim();
            int colon = entry.indexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("fast-path key #" + (i + 1) + " is not of the form id:base64key");
            }
            String id = entry.substring(0, colon);
            if (!ID.matcher(id).matches()) {
                throw new IllegalArgumentException("fast-path key #" + (i + 1)
                        + " has an invalid id: use 1..32 of A-Z a-z 0-9 . _ -");
            }
            byte[] secret;
            try {
                secret = Base64.getDecoder().decode(entry.substring(colon + 1).trim());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("fast-path key '" + id + "' is not valid base64");
            }
            if (secret.length < MIN_KEY_BYTES) {
                throw new IllegalArgumentException("fast-path key '" + id + "' has " + secret.length
                        + " bytes; at least " + MIN_KEY_BYTES + " are needed (openssl rand -base64 32)");
            }
            if (byId.put(id, new VerifierKey(id, new SecretKeySpec(secret, "HmacSHA256"))) != null) {
                throw new IllegalArgumentException("fast-path key id '" + id + "' is listed twice");
            }
        }
        String current = currentId.map(String::trim).filter(id -> !id.isEmpty()).orElse(null);
        if (current == null) {
            if (byId.size() != 1) {
                throw new IllegalArgumentException("several fast-path keys are configured: name the one to write new"
                        + " verifiers under (identity.auth.fast-path.current-key)");
            }
            current = byId.keySet().iterator().next();
        }
        VerifierKey currentKey = byId.get(current);
        if (currentKey == null) {
            throw new IllegalArgumentException("the current fast-path key '" + current + "' is not in the key set");
        }
        return new VerifierKeys(Map.copyOf(byId), currentKey);
    }

    public VerifierKey current() {
        return current;
    }

    /** The key with this id, or null when it is not (or no longer) configured. */
    public VerifierKey byId(String id) {
        return byId.get(id);
    }
}
