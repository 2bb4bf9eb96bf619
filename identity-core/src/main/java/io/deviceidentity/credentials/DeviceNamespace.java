package io.deviceidentity.credentials;

import java.util.List;

/**
 * A device's own topics: {@code devices/<client id>} and everything below it, what the {@link DefaultAcl} rule
 * {@code devices/${clientid}/#} matches. Granting anything outside takes more authority than registering a device
 * (registration-service asks for the token scope {@code superuser}): a rule {@code allow all #} is a superuser in
 * effect, and {@code devices/+/...} reads or commands every other device.
 *
 * <p>A rule stays within the namespace when its topic filter, rendered with the device's <em>registered</em> client id
 * and username ({@link AclPlaceholders}, as auth-service renders it for EMQX), can only be matched by topics under
 * {@code devices/<client id>}: its first level is literally {@code devices} and its second literally the client id,
 * never {@code +} or {@code #}; what follows may be anything, wildcards included. For EMQX's exact match
 * ({@code eq devices/x/+}) the text after {@code eq } is the one topic filter it matches, and is judged the same way.
 * So {@code #}, {@code +/x}, {@code devices/#}, {@code devices/+/telemetry}, {@code $share/g/devices/x/#} (a
 * {@code $}-prefixed filter is not under {@code devices/}) and {@code devices/${username}/#} of a device whose
 * username differs from its client id all reach beyond it. A client id that cannot be a single topic level (it holds
 * {@code / + # $} or a control character) has no namespace at all: {@code devices/a/b/#} of client id {@code a/b}
 * lies in the namespace of client id {@code a}.
 *
 * <p>Only {@code allow} rules are judged: rules apply in order and the first match decides, so a {@code deny} can only
 * take away what a later {@code allow} would grant, never grant anything itself, wherever its filter points.
 */
public final class DeviceNamespace {

    /** The first topic level of every device's namespace. */
    public static final String ROOT = "devices";
    /** The namespace's filter as stored, for a device's client id ({@link AclPlaceholders} renders it). */
    public static final String OWN_SUBTREE = ROOT + "/" + AclPlaceholders.CLIENTID + "/#";

    private DeviceNamespace() {
    }

    /**
     * The index of the first {@code allow} rule that reaches beyond the namespace of the device registered as
     * {@code clientId} with {@code username} ({@code null}: none), or {@code -1} when every rule stays within it. A
     * list that cannot be rendered ({@link AclPlaceholders#render}) is reported at its first unusable rule: no
     * unusable rule can be shown to stay within anything.
     */
    public static int firstRuleBeyond(List<AclRule> rules, String clientId, String username) {
        AclPlaceholders.Rendered rendered = AclPlaceholders.render(rules, clientId, username);
        if (!rendered.usable()) {
            return rendered.ruleIndex();
        }
        List<AclRule> filters = rendered.rules();
        for (int i = 0; i < filters.size(); i++) {
            AclRule rule = filters.get(i);
            if (AclRule.ALLOW.equals(rule.permission()) && !within(rule.topic(), clientId)) {
                return i;
            }
        }
        return -1;
    }

    /** Whether the rendered topic filter {@code filter} can only match topics under {@code devices/<clientId>}. */
    static boolean within(String filter, String clientId) {
        if (clientId == null || AclPlaceholders.valueProblem(clientId) != null) {
            return false;
        }
        String topic = filter.startsWith(TopicFilters.EXACT_PREFIX)
                ? filter.substring(TopicFilters.EXACT_PREFIX.length()) : filter;
        String own = ROOT + "/" + clientId;
        // devices/<id> itself, or a deeper level: devices/<id>x (another device's id) must not pass as a prefix.
        return topic.equals(own) || topic.startsWith(own + "/");
    }
}
