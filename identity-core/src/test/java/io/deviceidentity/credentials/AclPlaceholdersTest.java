package io.deviceidentity.credentials;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Rules are rendered from the registered client id and username; a value that is missing, empty, or carries MQTT
 * or EMQX syntax never becomes part of a filter, and one such rule makes the whole list unusable (never trimmed).
 */
class AclPlaceholdersTest {

    private static final AclRule OWN_SUBTREE = AclRule.allow(AclRule.ALL, "devices/${username}/#");

    @Test
    void placeholdersAreReplacedByTheRegisteredValues() {
        AclPlaceholders.Rendered rendered = AclPlaceholders.render(
                List.of(new AclRule(AclRule.DENY, AclRule.PUBLISH, "t/${clientid}/${username}/secret", List.of(1), true),
                        AclRule.allow(AclRule.SUBSCRIBE, "t/${clientid}/${username}/#"),
                        AclRule.allow(AclRule.PUBLISH, "fixed/+")),
                "dev-1", "alice");

        assertTrue(rendered.usable());
        assertEquals(List.of(new AclRule(AclRule.DENY, AclRule.PUBLISH, "t/dev-1/alice/secret", List.of(1), true),
                AclRule.allow(AclRule.SUBSCRIBE, "t/dev-1/alice/#"), AclRule.allow(AclRule.PUBLISH, "fixed/+")),
                rendered.rules());
    }

    @Test
    void theDefaultRulesRenderWithTheClientId() {
        assertEquals(List.of(AclRule.allow(AclRule.PUBLISH, "devices/dev-1/#"),
                AclRule.allow(AclRule.SUBSCRIBE, "devices/dev-1/commands/#")),
                AclPlaceholders.render(DefaultAcl.RULES, "dev-1", null).rules());
    }

    @Test
    void usernamePlaceholderWithoutARegisteredUsernameIsRefused() {
        AclPlaceholders.Rendered rendered = AclPlaceholders.render(List.of(OWN_SUBTREE), "dev-1", null);

        assertFalse(rendered.usable());
        assertNull(rendered.rules());
        assertEquals(0, rendered.ruleIndex());
        assertEquals("topic", rendered.field());
        assertEquals("uses ${username}, but the device is registered without a username", rendered.problem());
    }

    @ParameterizedTest(name = "username \"{0}\" is never put into a filter")
    @ValueSource(strings = {"", "+", "#", "a/b", "/", "a+", "${clientid}", "$SYS", "a$b", "tab\there"})
    void unsafeUsernamesAreRefused(String username) {
        assertNotNull(AclPlaceholders.valueProblem(username));
        assertFalse(AclPlaceholders.render(List.of(OWN_SUBTREE), "dev-1", username).usable());
    }

    @Test
    void aValueThatWouldTurnTheFilterIntoAnExactMatchIsRefused() {
        AclPlaceholders.Rendered rendered = AclPlaceholders.render(
                List.of(AclRule.allow(AclRule.SUBSCRIBE, "${username}/#")), "dev-1", "eq a");

        assertFalse(rendered.usable());
        assertTrue(rendered.problem().contains("'eq '"), rendered.problem());
        assertTrue(AclPlaceholders.render(List.of(AclRule.allow(AclRule.SUBSCRIBE, "eq ${username}/#")), "dev-1",
                "eq a").usable());
    }

    /** Odd but valid client ids ({@link ClientIdPolicy}) render as one plain level. */
    @ParameterizedTest(name = "client id \"{0}\"")
    @ValueSource(strings = {"0", "a.b", "a..b", "x:y", "user@host", "a_b-c", "a-", "Z9.:@_-",
            "eq", "e.q", "SYS", "a1234567890123456789012345678901234567890123456789012345678901234567890123456789"
                    + "012345678901234567890123456789012345678901234567"})
    void oddValidClientIdsRenderAsOneLevel(String clientId) {
        assertTrue(ClientIdPolicy.isValid(clientId));
        assertNull(AclPlaceholders.valueProblem(clientId));
        List<AclRule> rules = AclPlaceholders.render(DefaultAcl.RULES, clientId, null).rules();
        assertEquals("devices/" + clientId + "/#", rules.get(0).topic());
        assertEquals(3, rules.get(0).topic().split("/", -1).length);
    }

    @Test
    void oneUnusableRuleMakesTheWholeListUnusableSoNoDenyIsEverDropped() {
        AclPlaceholders.Rendered rendered = AclPlaceholders.render(List.of(
                AclRule.allow(AclRule.ALL, "devices/${clientid}/#"),
                new AclRule(AclRule.DENY, AclRule.ALL, "devices/${username}/secret", null, null),
                AclRule.allow(AclRule.ALL, "#")), "dev-1", null);

        assertFalse(rendered.usable());
        assertEquals(1, rendered.ruleIndex());
    }

    @ParameterizedTest(name = "stored topic \"{0}\"")
    @ValueSource(strings = {"devices/${cert_common_name}/#", "devices/${client_attrs.tenant}/#", "a/${zone}",
            "a/${$}{username}", "a#", ""})
    void storedRulesRegistrationWouldRefuseAreUnusable(String topic) {
        AclPlaceholders.Rendered rendered = AclPlaceholders.render(List.of(AclRule.allow(AclRule.ALL, topic)),
                "dev-1", "alice");

        assertFalse(rendered.usable(), topic);
        assertEquals("topic", rendered.field());
    }

    @Test
    void aMalformedStoredRuleNamesItsField() {
        AclPlaceholders.Rendered rendered = AclPlaceholders.render(
                List.of(new AclRule("maybe", AclRule.ALL, "t", null, null)), "dev-1", null);

        assertEquals("permission", rendered.field());
    }
}
