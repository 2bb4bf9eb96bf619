package io.deviceidentity.credentials;

import java.util.List;

/**
 * The rules of a device registered without rules of its own: publish under its own subtree, subscribe to its own
 * command topics, nothing else. auth-service applies them; registration-service shows them, marked
 * {@code "acl_source":"default"}. Stored and shown with the {@code ${clientid}} placeholder, which auth-service
 * renders from the registered client id ({@link AclPlaceholders}) before answering.
 */
public final class DefaultAcl {

    public static final List<AclRule> RULES = List.of(
            AclRule.allow(AclRule.PUBLISH, DeviceNamespace.OWN_SUBTREE),
            AclRule.allow(AclRule.SUBSCRIBE, DeviceNamespace.ROOT + "/" + AclPlaceholders.CLIENTID + "/commands/#"));

    private DefaultAcl() {
    }

    /** Whether a device's stored rules are empty, so that the default ones apply. */
    public static boolean applies(DeviceCredential device) {
        return device.acl() == null || device.acl().isEmpty();
    }

    public static List<AclRule> rulesFor(DeviceCredential device) {
        return applies(device) ? RULES : device.acl();
    }
}
