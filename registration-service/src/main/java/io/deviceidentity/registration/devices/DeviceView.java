package io.deviceidentity.registration.devices;

import java.time.Instant;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonProperty;

import io.deviceidentity.credentials.AclRule;
import io.deviceidentity.credentials.DefaultAcl;
import io.deviceidentity.credentials.DeviceCredential;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * A device's metadata as the API shows it. Built field by field from the stored credential, so the password hash
 * cannot reach an answer by accident. {@code acl} is the list of rules that apply to the device, and
 * {@code acl_source} says whose they are: {@code "device"} (registered with it) or {@code "default"} (registered
 * without rules, so auth-service's default rules apply; they are shown).
 */
@RegisterForReflection
public record DeviceView(
        @JsonProperty("clientid") String clientId,
        String username,
        String status,
        boolean superuser,
        List<AclRule> acl,
        @JsonProperty("acl_source") String aclSource,
        @JsonProperty("created_at") Instant createdAt,
        @JsonProperty("updated_at") Instant updatedAt) {

    public static final String ACL_DEVICE = "device";
    public static final String ACL_DEFAULT = "default";

    public static DeviceView of(DeviceCredential device) {
        return new DeviceView(device.clientId(), device.username(), device.status().column(), device.superuser(),
                DefaultAcl.rulesFor(device), DefaultAcl.applies(device) ? ACL_DEFAULT : ACL_DEVICE,
                device.createdAt(), device.updatedAt());
    }
}
