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
     * {@code PUT /v1/devices/{clientId}}: exactly one of {@code password} and {@code password_hash} (their limits:
     * {@link ApiConstraints}).
     */
    public record Registration(
            String password,
            @JsonProperty("password_hash") String passwordHash,
            String username,
            Boolean superuser,
            List<AclRule> acl) {
    }

    /**
     * One line of an import body: {@code client_id} and {@code password_hash} required; a legacy scheme's own fields
     * (salt, ...) are described in words ({@link ApiConstraints}), each scheme taking its own.
     */
    public record ImportLine(
            @JsonProperty("client_id") String clientId,
            @JsonProperty("password_hash") String passwordHash,
            @JsonProperty("password_scheme") String passwordScheme,
            String username,
            Boolean superuser,
            List<AclRule> acl) {
    }
}
