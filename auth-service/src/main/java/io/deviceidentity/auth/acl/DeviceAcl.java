package io.deviceidentity.auth.acl;

import java.util.List;

import org.jboss.logging.Logger;

import io.deviceidentity.credentials.AclPlaceholders;
import io.deviceidentity.credentials.AclRule;
import io.deviceidentity.credentials.DefaultAcl;
import io.deviceidentity.credentials.DeviceCredential;

/**
 * The rules that apply to a device, rendered from its <em>registered</em> client id and username
 * ({@link AclPlaceholders}): its own, or by default publishing under its own subtree and subscribing to its own
 * command topics ({@link DefaultAcl}, shared with registration-service, which shows them unrendered). Both the authn
 * answer's {@code acl} and {@code /mqtt/authz} use these rendered rules, so no placeholder is left for EMQX to fill
 * with what the connecting client sent.
 *
 * <p>A stored list that cannot be rendered (written before registration refused it, or straight into the database)
 * is not trimmed: dropping one rule could drop a {@code deny}. The device is denied instead, reason
 * {@code unsafe_acl}, counted with the other outcomes and logged here with the rule's index and what is wrong
 * (never a password, hash or the username itself).
 */
public final class DeviceAcl {

    /** The outcome reason of a device denied because its stored rules cannot be rendered safely. */
    public static final String UNSAFE_ACL = "unsafe_acl";

    private static final Logger LOG = Logger.getLogger(DeviceAcl.class);

    private DeviceAcl() {
    }

    /** The device's rules rendered, or null (logged) when they cannot be used: the device must then be denied. */
    public static List<AclRule> renderedFor(DeviceCredential device, String operation) {
        AclPlaceholders.Rendered rendered = AclPlaceholders.renderFor(device);
        if (!rendered.usable()) {
            LOG.warnf("%s denied clientid=%s reason=%s: stored acl[%d].%s %s; re-register the device (PUT) with"
                    + " rules it can use", operation, device.clientId(), UNSAFE_ACL, rendered.ruleIndex(),
                    rendered.field(), rendered.problem());
            return null;
        }
        return rendered.rules();
    }
}
