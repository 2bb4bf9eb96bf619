package io.deviceidentity.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import io.deviceidentity.auth.acl.DeviceAcl;
import io.deviceidentity.auth.acl.TopicRules;
import io.deviceidentity.auth.authn.AuthnRequest;
import io.deviceidentity.credentials.AclRule;
import io.deviceidentity.credentials.ClientIdPolicy;
import io.deviceidentity.credentials.DeviceCredential;
import io.deviceidentity.credentials.DeviceStatus;
import io.deviceidentity.credentials.PasswordPolicy;
import io.deviceidentity.registration.RegistrationConfig;
import io.deviceidentity.registration.devices.RegistrationRequest;
import io.deviceidentity.registration.tokens.BearerTokens;
import io.deviceidentity.registration.tokens.Caller;
import io.deviceidentity.registration.tokens.Scope;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Secret;

/**
 * What the kind end-to-end workflow's revocation verdicts (k8s/e2e-checks.sh revoke-kicks, rekey-kicks) send, given
 * to the real code that receives it: the bearer token the script extracts from the Secret this chart renders goes to
 * registration-service's {@link BearerTokens}; the passwords it makes for its probe devices to the password rules;
 * the topic filter its MQTT session Job subscribes to, for the device it registers, to the ACL that auth-service
 * answers EMQX with ({@link DeviceAcl}, {@link TopicRules}). The script's functions run in bash, sourced, exactly as
 * the verdicts call them.
 */
class E2eWorkflowInputsTest {

    private static final Path SCRIPT = Chart.REPO.resolve("k8s/e2e-checks.sh");
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    @TempDir
    Path tempDir;

    @Test
    void theTokenTheRevocationVerdictsSendIsAcceptedByRegistrationServiceWithTheWriteScope() throws Exception {
        Secret secret = FakeCluster.empty(tempDir).render(Map.of()).get(Secret.class, Chart.name("registration-tokens"));
        String tokens = PgBouncerTest.decode(secret, "tokens");
        assertWrites(tokens, extractedToken(tokens));
    }

    @Test
    void withSeveralCallersTheVerdictsUseTheFirstTokenThatMayWrite() throws Exception {
        Secret secret = FakeCluster.empty(tempDir).render(Chart.set(
                "registrationService.tokens[0].id", "audit",
                "registrationService.tokens[0].scopes[0]", "read",
                "registrationService.tokens[1].id", "provisioning",
                "registrationService.tokens[1].scopes[0]", "read",
                "registrationService.tokens[1].scopes[1]", "write",
                "registrationService.tokens[1].token", "provisioning-token:with-a-colon-0123456789"))
                .get(Secret.class, Chart.name("registration-tokens"));
        String tokens = PgBouncerTest.decode(secret, "tokens");
        String token = extractedToken(tokens);
        assertEquals("provisioning-token:with-a-colon-0123456789", token);
        assertWrites(tokens, token);
    }

    /**
     * Every command in the docs that reads a registration token out of the chart's Secret, run by bash against that
     * Secret as this chart renders it (a stand-in kubectl answers the jsonpath), yields a token registration-service
     * accepts.
     */
    @Test
    void everyTokenCommandInTheDocsYieldsATokenRegistrationServiceAccepts() throws Exception {
        Secret secret = FakeCluster.empty(tempDir).render(Map.of()).get(Secret.class, Chart.name("registration-tokens"));
        Path bin = Files.createDirectories(tempDir.resolve("bin"));
        for (Map.Entry<String, String> key : secret.getData().entrySet()) {
            Files.writeString(tempDir.resolve("key-" + key.getKey()), key.getValue());
        }
        Path kubectl = bin.resolve("kubectl");
        Files.writeString(kubectl, "#!/bin/bash\nfor a in \"$@\"; do [[ $a =~ ^jsonpath=\\{\\.data\\.([A-Za-z0-9_-]+)\\}$ ]]"
                + " && exec cat \"" + tempDir + "/key-${BASH_REMATCH[1]}\"; done; exit 3\n");
        Files.setPosixFilePermissions(kubectl, PosixFilePermissions.fromString("rwxr-xr-x"));
        Pattern command = Pattern.compile(
                "TOKEN=\\$\\((kubectl [^\\n]*get secret device-identity-registration-tokens[^\\n]*)\\)\\s*$",
                Pattern.MULTILINE);
        List<String> found = new ArrayList<>();
        try (var pages = Files.list(Chart.REPO.resolve("docs"))) {
            for (Path page : pages.filter(p -> p.toString().endsWith(".md")).sorted().toList()) {
                Matcher matcher = command.matcher(Files.readString(page));
                while (matcher.find()) {
                    String pipeline = matcher.group(1);
                    String token = shell(pipeline, "PATH", bin + ":" + System.getenv("PATH"));
                    found.add(page.getFileName() + ": " + pipeline);
                    assertWrites(PgBouncerTest.decode(secret, "tokens"), token);
                }
            }
        }
        assertFalse(found.isEmpty(), "no token command found in docs/: the scan is broken");
    }

    @Test
    void theProbeDevicesPasswordsMeetTheChartsMinimumLengthAndBcryptsLimit() throws Exception {
        ConfigMap config = FakeCluster.empty(tempDir).render(Map.of())
                .get(ConfigMap.class, Chart.name("registration-service"));
        int minimum = Integer.parseInt(config.getData().get("IDENTITY_REGISTRATION_MIN_PASSWORD_LENGTH"));
        for (String label : List.of("revoke-first", "revoke-second", "rekey-first", "rekey-second")) {
            for (int i = 0; i < 20; i++) {
                String password = script("probe_password " + label);
                assertTrue(password.length() >= minimum, password + " is shorter than " + minimum);
                assertNotNull(PasswordPolicy.usableBytes(password), PasswordPolicy.problem(password));
            }
        }
    }

    /**
     * The failover verdict's load (k8s/e2e-checks.sh db-failover): its client ids, the PUT body it registers them
     * with and the authn body it logs them in with, as it builds them, are accepted by registration-service's and
     * auth-service's own parsers and policies.
     */
    @Test
    void theFailoverLoadsRegistrationsAndLoginsAreAcceptedByTheServicesParsers() throws Exception {
        ObjectMapper json = new ObjectMapper();
        for (String label : List.of("failover-known", "failover-revoked", "failover-write")) {
            String password = script("probe_password " + label);
            for (String id : List.of("e2e-failover-known", "e2e-failover-revoked", "e2e-failover-3276732767-1000")) {
                assertNull(ClientIdPolicy.problem(id), id);
                RegistrationRequest put = RegistrationRequest.parse(json, id,
                        script("failover_put_body " + id + " " + password).getBytes(StandardCharsets.UTF_8));
                assertEquals(password, put.password());
                assertEquals(id, put.username());
                AuthnRequest authn = AuthnRequest.from((com.fasterxml.jackson.databind.node.ObjectNode)
                        json.readTree(script("failover_authn_body " + id + " " + password)));
                assertEquals(List.of(id, id, password), List.of(authn.clientId(), authn.username(), authn.password()));
            }
        }
    }

    /**
     * The session Job's device is registered without rules, so the default ACL applies; EMQX answers a filter it
     * does not grant with SUBACK 0x87, and mosquitto_sub then exits, ending the session the verdict waits for.
     */
    @Test
    void everyFilterTheSessionJobSubscribesToIsGrantedToItsDevice() throws Exception {
        String id = "e2e-revoke-probe";
        JsonNode job = YAML.readTree(script("mqtt_session_job " + id + " some-password-0123456789abcdef"));
        List<String> args = new ArrayList<>();
        job.at("/spec/template/spec/containers/0/args").forEach(a -> args.add(a.asText()));
        assertEquals(id, args.get(args.indexOf("-i") + 1));
        List<String> filters = new ArrayList<>();
        for (int i = 0; i < args.size() - 1; i++) {
            if (args.get(i).equals("-t") || args.get(i).equals("--topic")) {
                filters.add(args.get(i + 1));
            }
        }
        assertFalse(filters.isEmpty(), "the session Job subscribes to nothing: " + args);
        List<AclRule> rules = DeviceAcl.renderedFor(new DeviceCredential(id, args.get(args.indexOf("-u") + 1), "hash",
                DeviceStatus.ACTIVE, false, List.of(), Instant.EPOCH, Instant.EPOCH, null), "subscribe");
        for (String filter : filters) {
            // mosquitto_sub subscribes at QoS 0 unless -q says otherwise.
            assertTrue(TopicRules.allows(rules, AclRule.SUBSCRIBE, filter, 0, false),
                    filter + " is outside the ACL of " + id + ": " + rules);
        }
    }

    private static void assertWrites(String configured, String token) {
        BearerTokens bearerTokens = new BearerTokens(config(configured));
        Caller caller = bearerTokens.identify("Bearer " + token, "10.244.0.9");
        assertNotNull(caller, "registration-service refuses the token the verdicts send (401)");
        assertTrue(caller.has(Scope.WRITE), caller.toString());
        assertNull(bearerTokens.identify("Bearer " + configured.split(",")[0], "10.244.0.9"),
                "a whole entry is not a token");
    }

    /** The tokens value as registration-service reads it: SmallRye splits the list at commas. */
    private static RegistrationConfig config(String tokens) {
        return (RegistrationConfig) Proxy.newProxyInstance(RegistrationConfig.class.getClassLoader(),
                new Class<?>[] {RegistrationConfig.class}, (proxy, method, arguments) -> {
                    if (method.getName().equals("tokens")) {
                        return Arrays.asList(tokens.split(","));
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    /** registration_token with the Secret's decoded tokens recorded, as the verdicts read them. */
    private String extractedToken(String tokens) throws Exception {
        Path recorded = Files.createDirectories(tempDir.resolve("recorded"));
        Files.writeString(recorded.resolve("registration-tokens"), tokens + "\n");
        return script("registration_token", "E2E_RECORDED", recorded.toString());
    }

    private static String script(String call, String... environment) throws Exception {
        return shell("source \"$1\" && " + call, environment);
    }

    private static String shell(String call, String... environment) throws Exception {
        ProcessBuilder builder = new ProcessBuilder("bash", "-c", call, "bash", SCRIPT.toString());
        for (int i = 0; i < environment.length; i += 2) {
            builder.environment().put(environment[i], environment[i + 1]);
        }
        Process process = builder.redirectErrorStream(false).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), call);
        assertEquals(0, process.exitValue(), call + ": " + err);
        return out.strip();
    }
}
