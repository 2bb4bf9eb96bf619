package io.deviceidentity.credentials;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * One authorization rule in EMQX's authn-response {@code acl} format: {@code permission} allow|deny,
 * {@code action} publish|subscribe|all, a topic filter that may use {@code ${clientid}} and {@code ${username}}
 * (filled with the device's registered values by {@link AclPlaceholders}, never by the broker), and optional
 * {@code qos} and {@code retain} conditions. Rules are evaluated in order; the first match decides.
 */
@RegisterForReflection
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = false)
public record AclRule(String permission, String action, String topic, List<Integer> qos, Boolean retain) {

    public static final String ALLOW = "allow";
    public static final String DENY = "deny";
    public static final String PUBLISH = "publish";
    public static final String SUBSCRIBE = "subscribe";
    public static final String ALL = "all";
    public static final int MAX_TOPIC_LENGTH = 512;

    public static AclRule allow(String action, String topic) {
        return new AclRule(ALLOW, action, topic, null, null);
    }

    /** What is wrong with one field of a rule: {@code field} is the rule's own field name, e.g. {@code topic}. */
    public record Problem(String field, String message) {
    }

    /** Why the rule cannot be used, or {@code null} when it is well formed. */
    public Problem problem() {
        if (!ALLOW.equals(permission) && !DENY.equals(permission)) {
            return new Problem("permission", "must be allow or deny");
        }
        if (!PUBLISH.equals(action) && !SUBSCRIBE.equals(action) && !ALL.equals(action)) {
            return new Problem("action", "must be publish, subscribe or all");
        }
        String topicProblem = TopicFilters.problem(topic);
        if (topicProblem != null) {
            return new Problem("topic", topicProblem);
        }
        if (qos != null && (qos.isEmpty() || qos.stream().anyMatch(q -> q == null || q < 0 || q > 2))) {
            return new Problem("qos", "must list values from 0 to 2");
        }
        return null;
    }
}
