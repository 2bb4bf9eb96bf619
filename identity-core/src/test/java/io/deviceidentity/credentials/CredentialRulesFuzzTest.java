package io.deviceidentity.credentials;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Path client ids and ACL topic filters: the checks never throw, and what they accept keeps the promises the rest
 * of the code relies on (a client id can be substituted into a topic filter without adding levels or wildcards; an
 * accepted filter has '#' only last and '+' only as a whole level).
 */
class CredentialRulesFuzzTest {

    @FuzzTest(maxDuration = "30s")
    void clientId(FuzzedDataProvider data) {
        String clientId = data.consumeRemainingAsString();
        boolean valid = ClientIdPolicy.isValid(clientId);
        String problem = ClientIdPolicy.problem(clientId);
        assertEquals(valid, problem == null);
        if (valid) {
            assertTrue(clientId.length() >= 1 && clientId.length() <= ClientIdPolicy.MAX_LENGTH);
            assertFalse(clientId.contains("/") || clientId.contains("+") || clientId.contains("#")
                    || clientId.contains("${") || clientId.chars().anyMatch(Character::isISOControl));
            // Substituted for ${clientid}, it keeps a valid filter valid.
            assertNull(TopicFilters.problem("devices/" + clientId + "/#"));
            // ... and AclPlaceholders renders it: a registered device's default rules are always usable.
            assertNull(AclPlaceholders.valueProblem(clientId));
            assertEquals("devices/" + clientId + "/#",
                    AclPlaceholders.render(DefaultAcl.RULES, clientId, null).rules().get(0).topic());
        }
    }

    @FuzzTest(maxDuration = "30s")
    void topicFilter(FuzzedDataProvider data) {
        String filter = data.consumeRemainingAsString();
        String problem = TopicFilters.problem(filter);
        AclRule.Problem ruleProblem = new AclRule(AclRule.ALLOW, AclRule.ALL, filter, null, null).problem();
        assertEquals(problem == null, ruleProblem == null);
        if (problem != null) {
            assertEquals("topic", ruleProblem.field());
            return;
        }
        assertNotNull(filter);
        assertFalse(filter.isEmpty() || filter.length() > AclRule.MAX_TOPIC_LENGTH);
        assertFalse(filter.chars().anyMatch(Character::isISOControl));
        if (!filter.startsWith(TopicFilters.EXACT_PREFIX)) {
            String[] levels = filter.split("/", -1);
            for (int i = 0; i < levels.length; i++) {
                assertTrue(!levels[i].contains("#") || levels[i].equals("#") && i == levels.length - 1, filter);
                assertTrue(!levels[i].contains("+") || levels[i].equals("+"), filter);
            }
        }
    }
}
