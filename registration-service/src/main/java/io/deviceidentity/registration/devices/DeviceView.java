package io.deviceidentity.registration.devices;

import java.time.Instant;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonProperty;

import io.deviceidentity.credentials.AclRule;
import io.deviceidentity.credentials.DeviceCredential;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * A device's metadata as the API shows it. Built field by field from the stored credential, so the password hash
 * cannot reach an answer by accident. {@code acl} is empty when the device uses auth-service's default rules.
 */
@RegisterForReflection
public record DeviceView(
        @JsonProperty("clientid") String clientId,
        String username,
        String status,
        boolean superuser,
        List<AclRule> acl,
        @JsonProperty("created_at") Instant createdAt,
        @JsonProperty("updated_at") Instant updatedAt) {

    public static DeviceView of(DeviceCredential device) {
        return new DeviceView(device.clientId(), device.username(), device.status().column(), device.superuser(),
                device.acl() == null ? List.of() : device.acl(), device.createdAt(), device.updatedAt());
    }
}
