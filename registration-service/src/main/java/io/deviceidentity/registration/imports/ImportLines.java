package io.deviceidentity.registration.imports;

import java.util.Set;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.deviceidentity.credentials.ClientIdPolicy;
import io.deviceidentity.http.InvalidRequestException;
import io.deviceidentity.http.JsonBodies;
import io.deviceidentity.registration.devices.RegistrationRequest;

/**
 * One import line: a JSON object with {@code client_id} and {@code password_hash} (required) and the optional
 * fields PUT accepts ({@code username}, {@code superuser}, {@code acl}), checked by the very rules PUT applies.
 * {@code password_scheme} (default {@code bcrypt}) names another broker's hash format ({@link LegacyImportLines}).
 * A bad line is an {@link InvalidRequestException} with the reason PUT would answer; its message never quotes the
 * hash.
 */
final class ImportLines {

    static final String CLIENT_ID = "client_id";
    private static final Set<String> FIELDS = Set.of(CLIENT_ID, "password_hash", "username", "superuser", "acl");
    private static final String ALLOWED = "client_id, password_hash, password_scheme, username, superuser, acl";

    private ImportLines() {
    }

    static ImportRow parse(ObjectMapper json, int line, byte[] bytes, boolean allowWeakSchemes) {
        ObjectNode object = JsonBodies.object(json, bytes);
        String clientId = JsonBodies.requiredString(object, CLIENT_ID);
        String problem = ClientIdPolicy.problem(clientId);
        if (problem != null) {
            throw InvalidRequestException.badRequest("invalid_client_id", "field 'client_id': " + problem);
        }
        if (LegacyImportLines.isLegacy(object)) {
            return LegacyImportLines.parse(object, line, clientId, FIELDS, allowWeakSchemes);
        }
        object.remove(LegacyImportLines.SCHEME);
        RegistrationRequest device = RegistrationRequest.parseImported(object, clientId, FIELDS, ALLOWED);
        return new ImportRow(line, clientId, device);
    }
}
