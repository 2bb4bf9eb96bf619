package io.deviceidentity.auth.acl;

import java.util.List;

import io.deviceidentity.credentials.AclRule;

/**
 * Evaluates ACL rules the way EMQX does for a rule list: in order, the first rule whose action, topic filter, QoS
 * and retain conditions all match decides; no match is a denial ({@code no_match = deny}). The rules are the
 * device's rules already rendered from its registered values ({@link DeviceAcl}): nothing the client sends is put
 * into a filter here.
 */
public final class TopicRules {

    private static final String EXACT_PREFIX = "eq ";

    private TopicRules() {
    }

    /**
     * @param action  {@code publish} or {@code subscribe}
     * @param topic   the topic name published to, or the filter subscribed to
     * @param qos     0..2
     * @param retain  the publish's retain flag ({@code false} for subscriptions)
     */
    public static boolean allows(List<AclRule> rules, String action, String topic, int qos, boolean retain) {
        for (AclRule rule : rules) {
            if (applies(rule, action, topic, qos, retain)) {
                return AclRule.ALLOW.equals(rule.permission());
            }
        }
        return false;
    }

    private static boolean applies(AclRule rule, String action, String topic, int qos, boolean retain) {
        if (!AclRule.ALL.equals(rule.action()) && !rule.action().equals(action)) {
            return false;
        }
        if (rule.qos() != null && !rule.qos().contains(qos)) {
            return false;
        }
        if (rule.retain() != null && AclRule.PUBLISH.equals(action) && rule.retain() != retain) {
            return false;
        }
        String filter = rule.topic();
        if (filter.startsWith(EXACT_PREFIX)) {
            return filter.substring(EXACT_PREFIX.length()).equals(topic);
        }
        return matches(filter, topic);
    }

    /**
     * MQTT topic matching of {@code filter} against {@code topic}. Wildcards in {@code topic} (a subscription
     * filter) are taken literally: they are matched only by a wildcard in the rule, so {@code a/+} does not grant
     * a subscription to {@code a/#}. Topics starting with {@code $} are not matched by a leading wildcard.
     */
    static boolean matches(String filter, String topic) {
        String[] rule = filter.split("/", -1);
        String[] name = topic.split("/", -1);
        if (topic.startsWith("$") && (rule[0].equals("+") || rule[0].equals("#"))) {
            return false;
        }
        for (int i = 0; i < rule.length; i++) {
            if (rule[i].equals("#")) {
                return i == rule.length - 1;
            }
            if (i >= name.length) {
                return false;
            }
            if (!rule[i].equals("+") && !rule[i].equals(name[i])) {
                return false;
            }
            if (rule[i].equals("+") && name[i].equals("#")) {
                return false; // '+' grants one level, not every level below
            }
        }
        return rule.length == name.length;
    }
}
