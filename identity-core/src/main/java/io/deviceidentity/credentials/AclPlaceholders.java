package io.deviceidentity.credentials;

import java.util.ArrayList;
import java.util.List;

/**
 * Renders a device's ACL rules from its <em>registered</em> client id and username, never from what a client sends,
 * so that a rule can never match more than the rule its owner registered (docs/security.md, "ACL placeholders").
 *
 * <p>The rule set:
 * <ul>
 *   <li>{@code ${clientid}} and {@code ${username}} are the only placeholders ({@link TopicFilters}); each is
 *       replaced by the device's registered value, and a rendered rule keeps no {@code ${...}} at all.</li>
 *   <li>A value may be substituted only when it is non-empty and contains none of {@code / + #} (MQTT separator and
 *       wildcards: they would add levels or widen a level), no {@code $} (EMQX's template syntax: {@code ${...}}
 *       and {@code ${$}} would be rendered again by the broker, with the connecting client's values; a leading
 *       {@code $} would also turn the filter into a {@code $}-topic) and no control characters. A device without a
 *       username has no value for {@code ${username}}. A value that would make a filter start with {@code eq }
 *       (EMQX's exact match, in which {@code a/#} is a literal filter) is refused as well.</li>
 *   <li>One rule that cannot be rendered, or that is malformed, makes the whole list unusable: dropping a single
 *       rule could drop a {@code deny} and so <em>widen</em> access. Registration refuses such a list (400
 *       {@code invalid_acl}); auth-service denies a device whose stored list is unusable ({@code unsafe_acl}).</li>
 * </ul>
 * Why auth-service must render: EMQX 5.8 renders {@code ${username}}, {@code ${clientid}},
 * {@code ${cert_common_name}}, {@code ${zone}} and {@code ${client_attrs.*}} in the topics of an authn-returned
 * {@code acl} from the <em>connecting</em> client's values ({@code emqx/emqx@v5.8.9:
 * apps/emqx_auth/src/emqx_authz/emqx_authz_rule.erl}, {@code ALLOWED_VARS}, {@code compile_topic/1},
 * {@code render_topic/2}; the rules come from {@code emqx_authn_http:acl/3} through
 * {@code emqx_authz_rule_raw:parse_and_compile_rules/1}). A filter without {@code ${} is a constant template there
 * ({@code emqx_utils/src/emqx_template.erl}: placeholders and the {@code ${$}} escape both start with {@code ${}).
 */
public final class AclPlaceholders {

    public static final String CLIENTID = "${clientid}";
    public static final String USERNAME = "${username}";

    private AclPlaceholders() {
    }

    /**
     * The rules rendered, or why they cannot be: {@code rules} is null exactly when {@code problem} is not;
     * {@code ruleIndex} and {@code field} then say which rule and which of its fields.
     */
    public record Rendered(List<AclRule> rules, int ruleIndex, String field, String problem) {

        public boolean usable() {
            return rules != null;
        }

        static Rendered refused(int ruleIndex, String field, String problem) {
            return new Rendered(null, ruleIndex, field, problem);
        }
    }

    /** Why {@code value} cannot be put into a topic filter, or null when it can. The message does not quote it. */
    public static String valueProblem(String value) {
        if (value == null) {
            return "is not registered";
        }
        if (value.isEmpty()) {
            return "is empty";
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '/' || c == '+' || c == '#') {
                return "contains the MQTT separator or wildcard '" + c + "'";
            }
            if (c == '$') {
                return "contains '$', which EMQX would read as a placeholder";
            }
            if (Character.isISOControl(c)) {
                return "contains a control character";
            }
        }
        return null;
    }

    /** The rules that apply to {@code device} ({@link DefaultAcl#rulesFor}), rendered from its registered values. */
    public static Rendered renderFor(DeviceCredential device) {
        return render(DefaultAcl.rulesFor(device), device.clientId(), device.username());
    }

    /**
     * Renders every rule with the registered {@code clientId} and {@code username} ({@code null}: none). A malformed
     * rule or a value that cannot be substituted makes the whole list unusable.
     */
    public static Rendered render(List<AclRule> rules, String clientId, String username) {
        List<AclRule> rendered = new ArrayList<>(rules.size());
        for (int i = 0; i < rules.size(); i++) {
            AclRule rule = rules.get(i);
            AclRule.Problem malformed = rule == null ? new AclRule.Problem("topic", "is not a rule")
                    : rule.problem();
            if (malformed != null) {
                return Rendered.refused(i, malformed.field(), malformed.message());
            }
            String topic = rule.topic();
            String problem = placeholderProblem(topic, CLIENTID, "client id", clientId);
            if (problem == null) {
                problem = placeholderProblem(topic, USERNAME, "username", username);
            }
            if (problem != null) {
                return Rendered.refused(i, "topic", problem);
            }
            String filter = topic.replace(CLIENTID, clientId == null ? "" : clientId)
                    .replace(USERNAME, username == null ? "" : username);
            if (!topic.startsWith(TopicFilters.EXACT_PREFIX) && filter.startsWith(TopicFilters.EXACT_PREFIX)) {
                // "eq a/#" is EMQX's exact match of the filter "a/#": a value must not switch the rule's mode.
                return Rendered.refused(i, "topic", "would start with 'eq ' once rendered (EMQX's exact match)");
            }
            if (filter.contains("${")) {
                // Unreachable with the values allowed above; kept so that no change there can hand EMQX a template.
                return Rendered.refused(i, "topic", "would keep a placeholder for the broker to render");
            }
            rendered.add(filter.equals(topic) ? rule
                    : new AclRule(rule.permission(), rule.action(), filter, rule.qos(), rule.retain()));
        }
        return new Rendered(List.copyOf(rendered), -1, null, null);
    }

    private static String placeholderProblem(String topic, String placeholder, String name, String value) {
        if (!topic.contains(placeholder)) {
            return null;
        }
        if (value == null) {
            return "uses " + placeholder + ", but the device is registered without a " + name;
        }
        String problem = valueProblem(value);
        return problem == null ? null : "uses " + placeholder + ", but the device's " + name + " " + problem;
    }
}
