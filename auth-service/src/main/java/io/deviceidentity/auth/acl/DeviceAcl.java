package io.deviceidentity.auth.acl;

import java.util.List;

import io.deviceidentity.credentials.AclRule;
import io.deviceidentity.credentials.DeviceCredential;

/**
 * The rules that apply to a device: its own, or by default publishing under its own subtree and subscribing to
 * its own command topics. Topics keep EMQX's {@code ${clientid}} placeholder; client ids cannot contain topic
 * separators or wildcards (registration refuses them), so the rendered filter stays inside the device's subtree.
 */
public final class DeviceAcl {

    public static final List<AclRule> DEFAULT_RULES = List.of(
            AclRule.allow(AclRule.PUBLISH, "devices/${clientid}/#"),
            AclRule.allow(AclRule.SUBSCRIBE, "devices/${clientid}/commands/#"));

    private DeviceAcl() {
    }

    public static List<AclRule> rulesFor(DeviceCredential device) {
        return device.acl() == null || device.acl().isEmpty() ? DEFAULT_RULES : device.acl();
    }
}
