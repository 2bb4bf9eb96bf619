package io.deviceidentity.registration.api;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonProperty;

import io.deviceidentity.credentials.AclRule;

/**
 * The request bodies' shapes, for the OpenAPI document only: the resources read their bodies field by field
 * ({@code RegistrationRequest}, {@code ImportLines}) so that every refusal names its field.
 */
public final class RequestBodies {

    private RequestBodies() {
    }

    /**
     * {@code PUT /v1/devices/{clientId}}: exactly one of {@code password} (1..72 UTF-8 bytes) and
     * {@code password_hash} (a $2a$/$2b$/$2y$ bcrypt hash of cost 04..14, 60 characters, stored as given).
     */
    public record Registration(
            String password,
            @JsonProperty("password_hash") String passwordHash,
            String username,
            Boolean superuser,
            List<AclRule> acl) {
    }

    /** One line of an import body: {@code client_id} and {@code password_hash} required. */
    public record ImportLine(
            @JsonProperty("client_id") String clientId,
            @JsonProperty("password_hash") String passwordHash,
            String username,
            Boolean superuser,
            List<AclRule> acl) {
    }
}
