package io.deviceidentity.registration.reports;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * One page of {@code GET /v1/device-reports/weak-hashes}: active devices whose stored bcrypt hash has a lower cost
 * than the service's {@code bcrypt_cost}, weakest first, then by client id. {@code next} is the cursor of the next
 * page ({@code ?after=}), {@code null} on the last one. {@code schemes}, on the first page only ({@code null} on the
 * others), counts the active devices by password scheme ({@code bcrypt}, or a legacy scheme imported as it was and
 * not yet upgraded by a login: docs/migration.md).
 */
@RegisterForReflection
public record WeakHashPage(@JsonProperty("bcrypt_cost") int bcryptCost, List<WeakHash> devices, String next,
        Map<String, Long> schemes) {

    /** A device to rotate: its client id and the cost of its stored hash. */
    @RegisterForReflection
    public record WeakHash(@JsonProperty("client_id") String clientId, int cost) {
    }
}
