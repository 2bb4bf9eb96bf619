package io.deviceidentity.auth.acl;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.deviceidentity.credentials.AclRule;

class TopicRulesTest {

    @Test
    void singleLevelWildcardMatchesExactlyOneLevel() {
        assertTrue(TopicRules.matches("a/+/c", "a/b/c"));
        assertFalse(TopicRules.matches("a/+/c", "a/b/x/c"));
        assertFalse(TopicRules.matches("a/+", "a"));
        assertTrue(TopicRules.matches("a/+", "a/"));
    }

    @Test
    void multiLevelWildcardMatchesTheParentAndEverythingBelow() {
        assertTrue(TopicRules.matches("a/#", "a"));
        assertTrue(TopicRules.matches("a/#", "a/b/c"));
        assertTrue(TopicRules.matches("#", "anything/at/all"));
        assertFalse(TopicRules.matches("a/#", "b/a"));
    }

    @Test
    void leadingWildcardsDoNotMatchDollarTopics() {
        assertFalse(TopicRules.matches("#", "$SYS/brokers"));
        assertFalse(TopicRules.matches("+/brokers", "$SYS/brokers"));
        assertTrue(TopicRules.matches("$SYS/#", "$SYS/brokers"));
    }

    @Test
    void wildcardsInARequestedSubscriptionAreOnlyCoveredByWildcardsInTheRule() {
        assertTrue(TopicRules.matches("a/#", "a/+"));
        assertTrue(TopicRules.matches("a/+", "a/+"));
        assertFalse(TopicRules.matches("a/b", "a/+"));
        assertFalse(TopicRules.matches("a/+", "a/#"));
    }

    @Test
    void firstMatchingRuleDecidesAndNoMatchDenies() {
        List<AclRule> rules = List.of(
                new AclRule("deny", "publish", "x/secret", null, null),
                AclRule.allow("all", "x/#"));
        assertFalse(TopicRules.allows(rules, "publish", "x/secret", 0, false));
        assertTrue(TopicRules.allows(rules, "subscribe", "x/secret", 0, false));
        assertTrue(TopicRules.allows(rules, "publish", "x/other", 0, false));
        assertFalse(TopicRules.allows(rules, "publish", "y", 0, false));
    }
}
