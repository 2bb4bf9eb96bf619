package io.deviceidentity.auth.acl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

import io.deviceidentity.credentials.AclPlaceholders;
import io.deviceidentity.credentials.AclRule;

/**
 * The authz decision over fuzzed rule lists (only rules registration would store: {@code problem() == null}),
 * rendered from fuzzed <em>registered</em> client ids and usernames, against fuzzed topics: never an exception, the
 * decisions keep their basic promises, and a rendered rule never matches more topics than the registered rule
 * rendered with the registered values: it has the same levels and the same wildcards where they were, its
 * placeholders became text without separators, wildcards or {@code $}, and no rule is dropped.
 */
class TopicRulesFuzzTest {

    private static final String[] PERMISSIONS = {AclRule.ALLOW, AclRule.DENY};
    private static final String[] ACTIONS = {AclRule.PUBLISH, AclRule.SUBSCRIBE, AclRule.ALL};
    private static final String[] REQUESTED = {AclRule.PUBLISH, AclRule.SUBSCRIBE};
    /** Topic pieces the mutator would take long to find: placeholders, wildcards, EMQX's exact-match prefix. */
    private static final String[] PIECES = {"${clientid}", "${username}", "+", "#", "/", "eq ", "$", "a"};

    @FuzzTest(maxDuration = "30s")
    void decision(FuzzedDataProvider data) {
        List<AclRule> rules = new ArrayList<>();
        int count = data.consumeInt(0, 6);
        for (int i = 0; i < count; i++) {
            List<Integer> qos = data.consumeBoolean() ? null : List.of(data.consumeInt(0, 2));
            Boolean retain = data.consumeBoolean() ? null : data.consumeBoolean();
            AclRule rule = new AclRule(data.pickValue(PERMISSIONS), data.pickValue(ACTIONS), topic(data), qos,
                    retain);
            if (rule.problem() == null) {
                rules.add(rule);
            }
        }
        String clientId = data.consumeBoolean() ? data.pickValue(PIECES) : data.consumeString(32);
        String username = data.consumeBoolean() ? null
                : data.consumeBoolean() ? data.pickValue(PIECES) : data.consumeString(32);
        String action = data.pickValue(REQUESTED);
        int qos = data.consumeInt(0, 2);
        boolean retain = data.consumeBoolean();
        String topic = data.consumeRemainingAsString();

        AclPlaceholders.Rendered rendered = AclPlaceholders.render(rules, clientId, username);
        if (!rendered.usable()) {
            AclRule refused = rules.get(rendered.ruleIndex());
            assertTrue(refused.topic().contains(AclPlaceholders.CLIENTID)
                    || refused.topic().contains(AclPlaceholders.USERNAME), refused.topic());
            return;
        }
        assertEquals(rules.size(), rendered.rules().size(), "a rule was dropped");
        for (int i = 0; i < rules.size(); i++) {
            assertRendersNoWider(rules.get(i), rendered.rules().get(i), clientId, username);
        }

        boolean allowed = TopicRules.allows(rendered.rules(), action, topic, qos, retain);
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

    /**
     * {@code rendered} is {@code registered} with each placeholder replaced by the registered value, and that value
     * added no level, no wildcard, no placeholder and no change of matching mode: so it matches exactly the topics
     * the registered rule names, with those values, and never what a connecting client's values would add.
     */
    private static void assertRendersNoWider(AclRule registered, AclRule rendered, String clientId, String username) {
        String template = registered.topic();
        String filter = rendered.topic();
        assertEquals(template.replace(AclPlaceholders.CLIENTID, clientId)
                .replace(AclPlaceholders.USERNAME, username == null ? "" : username), filter);
        assertEquals(List.of(registered.permission(), registered.action()),
                List.of(rendered.permission(), rendered.action()));
        assertEquals(registered.qos(), rendered.qos());
        assertEquals(registered.retain(), rendered.retain());
        assertFalse(filter.contains("${"), filter);
        assertEquals(template.startsWith("eq "), filter.startsWith("eq "), filter);
        String[] templateLevels = template.split("/", -1);
        String[] filterLevels = filter.split("/", -1);
        assertEquals(templateLevels.length, filterLevels.length, filter);
        for (int i = 0; i < templateLevels.length; i++) {
            if (!templateLevels[i].contains("${")) {
                assertEquals(templateLevels[i], filterLevels[i]);
            } else {
                assertFalse(filterLevels[i].isEmpty(), filter);
            }
        }
        // The values added no wildcard (after "eq " the template's own '+' and '#' are literal text, and stay).
        assertEquals(count(template, '+'), count(filter, '+'), filter);
        assertEquals(count(template, '#'), count(filter, '#'), filter);
        if (filter.startsWith("$")) {
            assertTrue(template.startsWith("$") && !template.startsWith("${"), "a value made a $-topic: " + filter);
        }
    }

    private static long count(String text, char c) {
        return text.chars().filter(x -> x == c).count();
    }

    private static String topic(FuzzedDataProvider data) {
        if (!data.consumeBoolean()) {
            return data.consumeString(64);
        }
        StringBuilder topic = new StringBuilder();
        int pieces = data.consumeInt(1, 6);
        for (int i = 0; i < pieces; i++) {
            topic.append(data.pickValue(PIECES));
        }
        return topic.toString();
    }
}
