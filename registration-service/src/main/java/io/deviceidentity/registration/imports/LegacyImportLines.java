package io.deviceidentity.registration.imports;

import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.deviceidentity.credentials.legacy.AnchorFormats;
import io.deviceidentity.credentials.legacy.InvalidHashException;
import io.deviceidentity.credentials.legacy.LegacyHash;
import io.deviceidentity.http.InvalidRequestException;
import io.deviceidentity.http.JsonBodies;
import io.deviceidentity.registration.devices.RegistrationRequest;

/**
 * An import line whose {@code password_scheme} names another broker's hash (docs/api.md, "Legacy schemes"): the
 * anchor's own columns are converted by {@link AnchorFormats} into the stored scheme and form, and refused with the
 * field at fault otherwise. Which fields a scheme takes follows the anchor: EMQX's simple algorithms a {@code salt}
 * and {@code salt_position}, its {@code pbkdf2} a {@code salt}, {@code mac_fun}, {@code iterations} and
 * {@code dk_length}; mosquitto-go-auth's PBKDF2 string its {@code salt_encoding}; argon2id and Mosquitto's own
 * {@code mosquitto_passwd} hashes nothing but the string.
 * A weak scheme ({@link io.deviceidentity.credentials.legacy.PasswordScheme#weak()}) is refused unless the import
 * was started with {@code allow_weak_schemes=true}.
 */
public final class LegacyImportLines {

    static final String SCHEME = "password_scheme";
    static final String WEAK_REFUSED = "weak_scheme_not_allowed";
    /** Mosquitto's own password file ({@code mosquitto_passwd}): {@code $7$} PBKDF2-SHA512 and {@code $6$} SHA-512. */
    static final String MOSQUITTO_PASSWD = "mosquitto-passwd";

    /**
     * The import names of the schemes, in the order the messages list them, and the fields each takes besides
     * {@code password_hash}.
     */
    private static final Map<String, Set<String>> SCHEME_FIELDS = schemeFields();
    private static final String LEGACY_SCHEMES = String.join(", ", SCHEME_FIELDS.keySet());
    private static final String SCHEMES = "bcrypt (the default), " + LEGACY_SCHEMES;

    private static Map<String, Set<String>> schemeFields() {
        Map<String, Set<String>> fields = new LinkedHashMap<>();
        for (String emqx : List.of("emqx-plain", "emqx-md5", "emqx-sha", "emqx-sha256", "emqx-sha512")) {
            fields.put(emqx, Set.of(AnchorFormats.SALT, AnchorFormats.SALT_POSITION));
        }
        fields.put("emqx-pbkdf2", Set.of(AnchorFormats.SALT, AnchorFormats.MAC_FUN, AnchorFormats.ITERATIONS,
                AnchorFormats.DK_LENGTH));
        fields.put(MOSQUITTO_PASSWD, Set.of());
        fields.put("mosquitto-pbkdf2", Set.of(AnchorFormats.SALT_ENCODING));
        fields.put("argon2id", Set.of());
        return Collections.unmodifiableMap(fields);
    }

    /** Every value {@code password_scheme} accepts besides {@code bcrypt}, for the messages that send a caller there. */
    public static String legacySchemes() {
        return LEGACY_SCHEMES;
    }

    private LegacyImportLines() {
    }

    /** Whether the line names a scheme other than bcrypt (absent or {@code "bcrypt"}: the line is a bcrypt line). */
    static boolean isLegacy(ObjectNode object) {
        JsonNode scheme = object.get(SCHEME);
        return scheme != null && !scheme.isNull() && !(scheme.isTextual() && scheme.asText().equals("bcrypt"));
    }

    static ImportRow parse(ObjectNode object, int line, String clientId, Set<String> commonFields,
            boolean allowWeak) {
        String scheme = JsonBodies.requiredString(object, SCHEME);
        Set<String> own = SCHEME_FIELDS.get(scheme);
        if (own == null) {
            throw InvalidRequestException.badRequest("invalid_field",
                    "field 'password_scheme' must be one of " + SCHEMES);
        }
        Set<String> fields = new HashSet<>(commonFields);
        fields.add(SCHEME);
        fields.addAll(own);
        for (java.util.Iterator<String> names = object.fieldNames(); names.hasNext();) {
            String name = names.next();
            if (!fields.contains(name)) {
                // The old store's column for another scheme: checked first, so the line's real mistake is named.
                throw InvalidRequestException.badRequest("unknown_field", "field '" + shown(name)
                        + "' does not apply to password_scheme '" + scheme + "' (its fields: "
                        + String.join(", ", fields.stream().sorted().toList()) + ")");
            }
        }
        LegacyHash hash;
        try {
            hash = convert(scheme, object);
        } catch (InvalidHashException invalid) {
            throw InvalidRequestException.badRequest(
                    invalid.field().equals(AnchorFormats.HASH) ? "invalid_password_hash" : "invalid_field",
                    invalid.getMessage());
        }
        if (hash.scheme().weak() && !allowWeak) {
            throw InvalidRequestException.badRequest(WEAK_REFUSED, "field 'password_scheme': this line's hash is "
                    + hash.scheme().column() + ", which gives a database reader the password at once or after one"
                    + " unsalted hash; import it only with the query parameter allow_weak_schemes=true");
        }
        RegistrationRequest device = RegistrationRequest.parseImportedLegacy(object, clientId, fields,
                String.join(", ", fields.stream().sorted().toList()), hash.stored());
        return new ImportRow(line, clientId, device, hash.scheme());
    }

    /** A caller-chosen field name, cut short for a message. */
    private static String shown(String name) {
        return name.length() <= 64 ? name : name.substring(0, 64) + "…";
    }

    private static LegacyHash convert(String scheme, ObjectNode object) {
        String hash = text(object, AnchorFormats.HASH);
        return switch (scheme) {
            case "emqx-pbkdf2" -> AnchorFormats.emqxPbkdf2(hash, text(object, AnchorFormats.SALT),
                    text(object, AnchorFormats.MAC_FUN), number(object, AnchorFormats.ITERATIONS),
                    number(object, AnchorFormats.DK_LENGTH));
            case MOSQUITTO_PASSWD -> AnchorFormats.mosquittoPasswd(hash);
            case "mosquitto-pbkdf2" -> AnchorFormats.mosquittoPbkdf2(hash, text(object, AnchorFormats.SALT_ENCODING));
            case "argon2id" -> AnchorFormats.argon2id(hash);
            default -> AnchorFormats.emqxSimple(scheme.substring("emqx-".length()), hash,
                    text(object, AnchorFormats.SALT), text(object, AnchorFormats.SALT_POSITION));
        };
    }

    /** A string field, null when absent or null. */
    private static String text(ObjectNode object, String field) {
        JsonNode value = object.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isTextual()) {
            throw new InvalidHashException(field, "must be a string");
        }
        return value.asText();
    }

    /** A whole-number field, null when absent or null. */
    private static Integer number(ObjectNode object, String field) {
        JsonNode value = object.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isIntegralNumber() || !value.canConvertToInt()) {
            throw new InvalidHashException(field, "must be a whole number");
        }
        return value.asInt();
    }
}
