package io.deviceidentity.credentials;

import java.util.regex.Pattern;

/**
 * Which MQTT client ids a device may be registered under.
 *
 * <p>MQTT allows almost any UTF-8 client id, but ours are substituted into topic filters ({@code ${clientid}} in
 * ACL rules), so a client id must not contain topic separators or wildcards ({@code / + #}), spaces, control
 * characters or anything a log reader could mistake for structure. 128 characters is well above what device fleets
 * use and far below EMQX's 65535 limit.
 */
public final class ClientIdPolicy {

    public static final int MAX_LENGTH = 128;

    /**
     * The whole client id (matched in full): the regular expression that registration-service's OpenAPI document
     * publishes, anchored, as the {@code clientId} pattern.
     */
    public static final String PATTERN = "[A-Za-z0-9][A-Za-z0-9._:@-]{0," + (MAX_LENGTH - 1) + "}";

    private static final Pattern ALLOWED = Pattern.compile(PATTERN);

    private ClientIdPolicy() {
    }

    public static boolean isValid(String clientId) {
        return clientId != null && ALLOWED.matcher(clientId).matches();
    }

    /** Why a client id is refused, for a 4xx message. */
    public static String problem(String clientId) {
        if (isValid(clientId)) {
            return null;
        }
        return "client id must be 1.." + MAX_LENGTH
                + " characters of A-Z a-z 0-9 . _ : @ - and start with a letter or digit";
    }
}
