package io.deviceidentity.auth.acl;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

import io.deviceidentity.credentials.AclRule;

/**
 * The authz decision over fuzzed rule lists (only rules registration would store: {@code problem() == null}) and
 * fuzzed client ids, usernames and topics: never an exception, and the decisions keep their basic promises.
 */
class TopicRulesFuzzTest {

    private static final String[] PERMISSIONS = {AclRule.ALLOW, AclRule.DENY};
    private static final String[] ACTIONS = {AclRule.PUBLISH, AclRule.SUBSCRIBE, AclRule.ALL};
    private static final String[] REQUESTED = {AclRule.PUBLISH, AclRule.SUBSCRIBE};

    @FuzzTest(maxDuration = "30s")
    void decision(FuzzedDataProvider data) {
        List<AclRule> rules = new ArrayList<>();
        int count = data.consumeInt(0, 6);
        for (int i = 0; i < count; i++) {
            List<Integer> qos = data.consumeBoolean() ? null : List.of(data.consumeInt(0, 2));
            Boolean retain = data.consumeBoolean() ? null : data.consumeBoolean();
            AclRule rule = new AclRule(data.pickValue(PERMISSIONS), data.pickValue(ACTIONS),
                    data.consumeString(64), qos, retain);
            if (rule.problem() == null) {
                rules.add(rule);
            }
        }
        String clientId = data.consumeString(32);
        String username = data.consumeBoolean() ? null : data.consumeString(32);
        String action = data.pickValue(REQUESTED);
        int qos = data.consumeInt(0, 2);
        boolean retain = data.consumeBoolean();
        String topic = data.consumeRemainingAsString();

        boolean allowed = TopicRules.allows(rules, clientId, username, action, topic, qos, retain);
        if (rules.isEmpty()) {
            assertFalse(allowed, "no rule must deny");
        }
        // A filter without wildcards or placeholders matches itself and nothing longer.
        if (!topic.isEmpty() && topic.indexOf('+') < 0 && topic.indexOf('#') < 0 && !topic.startsWith("eq ")) {
            assertTrue(TopicRules.matches(topic, topic), topic);
            assertFalse(TopicRules.matches(topic, topic + "/x"), topic);
        }
        // '+' grants one level, never a '#' subscription below it.
        assertFalse(TopicRules.matches("+", "#"));
        if (allowed) {
            assertTrue(rules.stream().anyMatch(rule -> AclRule.ALLOW.equals(rule.permission())));
        }
    }
}
