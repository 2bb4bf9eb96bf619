package io.deviceidentity.auth.acl;

import java.util.List;

import io.deviceidentity.credentials.AclRule;
import io.deviceidentity.credentials.DefaultAcl;
import io.deviceidentity.credentials.DeviceCredential;

/**
 * The rules that apply to a device: its own, or by default publishing under its own subtree and subscribing to
 * its own command topics ({@link DefaultAcl}, shared with registration-service, which shows them). Topics keep
 * EMQX's {@code ${clientid}} placeholder; client ids cannot contain topic separators or wildcards (registration
 * refuses them), so the rendered filter stays inside the device's subtree.
 */
public final class DeviceAcl {

    public static final List<AclRule> DEFAULT_RULES = DefaultAcl.RULES;

    private DeviceAcl() {
    }

    public static List<AclRule> rulesFor(DeviceCredential device) {
        return DefaultAcl.rulesFor(device);
    }
}
