package io.deviceidentity.registration.tokens;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * What a registration token may do. There is no wildcard: a scope added later is never granted to a token that was
 * configured before it existed (least privilege), so every grant names its scopes.
 *
 * <ul>
 *   <li>{@code read}: {@code GET /v1/devices/{clientId}} and the weak-hash report;</li>
 *   <li>{@code write}: {@code PUT} and {@code DELETE /v1/devices/{clientId}}, the bulk import;</li>
 *   <li>{@code superuser}: in addition to {@code write}, any write that stores {@code "superuser": true} (a PUT body, an
 *       import line), such a device skips EMQX's authorization entirely; and any write that stores an {@code allow}
 *       rule reaching beyond the device's own topics ({@code GrantedScopes}, {@code DeviceNamespace}), which can
 *       grant as much;</li>
 *   <li>{@code import-replace}: in addition to {@code write}, an import with {@code existing=replace}, which may
 *       overwrite the credentials of every active device at once.</li>
 * </ul>
 */
public enum Scope {
    READ("read"),
    WRITE("write"),
    SUPERUSER("superuser"),
    IMPORT_REPLACE("import-replace");

    /** All of them, as a token grant writes them (for messages and documentation). */
    public static final String ALL = Arrays.stream(values()).map(Scope::label).collect(Collectors.joining("+"));

    private final String label;

    Scope(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    /** The scope named {@code label}; {@code null} when there is none. */
    static Scope named(String label) {
        String wanted = label.strip().toLowerCase(Locale.ROOT);
        for (Scope scope : values()) {
            if (scope.label.equals(wanted)) {
                return scope;
            }
        }
        return null;
    }
}
