package io.deviceidentity.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;

/**
 * The registration API's scoped tokens (registrationService.tokens) and its minimum password length: the Secret the
 * service reads ({@code tokens}: {@code <id>:<scopes>:<token>,...}) and one key per caller ({@code token-<id>}),
 * tokens generated once and kept across upgrades (also the single token of the chart before ids), and the refusals
 * of malformed entries.
 */
class RegistrationTokensChartTest {

    private static final String SECRET = Chart.name("registration-tokens");
    private static final String ALL = "read+write+superuser+import-replace";

    @TempDir
    Path tempDir;

    @Test
    void byDefaultOneAdminTokenWithEveryScopeIsGeneratedAndKeptAcrossUpgrades() {
        Chart.Rendered install = FakeCluster.empty(tempDir).render(Map.of());
        Secret secret = install.get(Secret.class, SECRET);
        String token = PgBouncerTest.decode(secret, "token-admin");
        assertTrue(token.matches("[A-Za-z0-9]{32}"), "32 random alphanumerics");
        assertEquals("admin:" + ALL + ":" + token, PgBouncerTest.decode(secret, "tokens"));

        Chart.Rendered upgrade = FakeCluster.holding(tempDir, install.all(Secret.class)).render(Map.of());
        assertEquals(secret.getData(), upgrade.get(Secret.class, SECRET).getData());
    }

    @Test
    void anUpgradeFromTheChartBeforeTokenIdsKeepsItsGeneratedTokenForTheFirstEntry() {
        String old = "OldGeneratedToken0123456789abcdef";
        Chart.Rendered upgrade = FakeCluster.holding(tempDir, List.of(tokensSecret(Map.of("tokens", old))))
                .render(Map.of());
        Secret secret = upgrade.get(Secret.class, SECRET);
        assertEquals(old, PgBouncerTest.decode(secret, "token-admin"));
        assertEquals("admin:" + ALL + ":" + old, PgBouncerTest.decode(secret, "tokens"));
    }

    @Test
    void eachCallerGetsItsIdItsScopesAndItsOwnKeyGivenOrGenerated() throws Exception {
        Chart.Rendered rendered = FakeCluster.empty(tempDir).render(Chart.set(
                "registrationService.tokens[0].id", "provisioning",
                "registrationService.tokens[0].scopes[0]", "read",
                "registrationService.tokens[0].scopes[1]", "write",
                "registrationService.tokens[0].token", "provisioning-token-0123456789",
                "registrationService.tokens[1].id", "migration",
                "registrationService.tokens[1].scopes[0]", "write",
                "registrationService.tokens[1].scopes[1]", "import-replace"));
        Secret secret = rendered.get(Secret.class, SECRET);
        String generated = PgBouncerTest.decode(secret, "token-migration");
        assertEquals(32, generated.length());
        assertEquals("provisioning-token-0123456789", PgBouncerTest.decode(secret, "token-provisioning"));
        assertEquals("provisioning:read+write:provisioning-token-0123456789,migration:write+import-replace:"
                + generated, PgBouncerTest.decode(secret, "tokens"));
        assertFalse(secret.getData().containsKey("token-admin"), "the list replaces the default");
    }

    @Test
    void aPlainStringEntryIsRefusedWithTheNewFormatInTheMessage() throws Exception {
        String refusal = refusal("registrationService:\n  tokens: [\"plain-old-token-0123456789\"]\n");
        assertMentions(refusal, "registrationService.tokens[0] is a plain string", "{id, scopes, token}");
        assertFalse(refusal.contains("plain-old-token-0123456789"), refusal);
    }

    @Test
    void malformedEntriesAreRefused() throws Exception {
        assertMentions(refusal(entry("ops", "[read, admin]", "a-good-long-token-0123456789")), "scopes/1");
        assertMentions(refusal(entry("ops", "[]", "a-good-long-token-0123456789")), "scopes");
        assertMentions(refusal(entry("bad id", "[read]", "a-good-long-token-0123456789")), "tokens/0/id");
        assertMentions(refusal(entry("ops", "[read]", "short")), "tokens/0/token");
        assertMentions(refusal(entry("ops", "[read]", "has,a-comma-0123456789")), "tokens/0/token");
        assertMentions(refusal("registrationService:\n  tokens:\n    - id: ops\n      token: a-good-long-token-0123456789\n"),
                "scopes");
        assertMentions(refusal("registrationService:\n  tokens:\n    - id: ops\n      scopes: [read]\n      extra: x\n"),
                "extra");
        assertMentions(refusal("registrationService:\n  tokens:\n"
                + "    - {id: ops, scopes: [read], token: token-one-0123456789}\n"
                + "    - {id: ops, scopes: [write], token: token-two-0123456789}\n"), "the id \"ops\" appears twice");
        assertMentions(refusal("registrationService:\n  tokens:\n"
                + "    - {id: a, scopes: [read], token: token-one-0123456789}\n"
                + "    - {id: b, scopes: [write], token: token-one-0123456789}\n"), "is also another entry's");
        assertMentions(refusal("registrationService:\n  tokens: []\n"), "registrationService.tokens is empty");
    }

    @Test
    void theMinimumPasswordLengthIsAValueWithTheServicesDefault() {
        assertEquals("22", ServicesTest.env(Chart.render(), "registration-service")
                .get("IDENTITY_REGISTRATION_MIN_PASSWORD_LENGTH"));
        assertEquals("32", ServicesTest.env(Chart.render(Chart.set("registrationService.minPasswordLength", 32)),
                "registration-service").get("IDENTITY_REGISTRATION_MIN_PASSWORD_LENGTH"));
        assertMentions(Chart.refusal(Chart.set("registrationService.minPasswordLength", 0)), "minPasswordLength");
        assertMentions(Chart.refusal(Chart.set("registrationService.minPasswordLength", 73)), "minPasswordLength");
    }

    private static String entry(String id, String scopes, String token) {
        return "registrationService:\n  tokens:\n    - id: \"" + id + "\"\n      scopes: " + scopes
                + "\n      token: \"" + token + "\"\n";
    }

    /** The refusal of these values (a file after test-secrets.yaml: its lists replace the file's). */
    private String refusal(String values) throws java.io.IOException {
        Path file = java.nio.file.Files.writeString(tempDir.resolve("values-" + System.nanoTime() + ".yaml"), values);
        IllegalStateException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                () -> Chart.renderYaml(Map.of(), file), "the chart rendered: " + values);
        return e.getMessage();
    }

    private static Secret tokensSecret(Map<String, String> data) {
        Map<String, String> encoded = new java.util.TreeMap<>();
        data.forEach((k, v) -> encoded.put(k, Base64.getEncoder().encodeToString(v.getBytes(StandardCharsets.UTF_8))));
        return new SecretBuilder().withMetadata(new ObjectMetaBuilder().withName(SECRET).build()).withData(encoded)
                .build();
    }

    private static void assertMentions(String message, String... parts) {
        for (String part : parts) {
            assertTrue(message.contains(part), () -> "expected \"" + part + "\" in:\n" + message);
        }
    }
}
