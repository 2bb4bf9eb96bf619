package io.deviceidentity.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;

/**
 * The chart side of the verified-credential fast path: auth-service's own database role, its Secret and
 * its creation in the bundled PostgreSQL, the key set's Secret (generated, kept across upgrades, or the operator's),
 * the environment the service reads, and the refusals.
 */
class FastPathChartTest {

    private static final String KEYS_SECRET = Chart.name("fastpath-keys");
    private static final String AUTH_DB_SECRET = Chart.name("db-auth");
    /** 32 bytes, base64. */
    private static final String KEY_A = Base64.getEncoder().encodeToString("a".repeat(32).getBytes(StandardCharsets.UTF_8));
    private static final String KEY_B = Base64.getEncoder().encodeToString("b".repeat(32).getBytes(StandardCharsets.UTF_8));

    @TempDir
    Path tempDir;

    // ----- The environment auth-service and registration-service read --------------------------------------------

    @Test
    void authServiceConnectsAsItsOwnRoleAndReadsTheKeySetFromASecret() {
        Map<String, String> refs = secretRefs(ServicesTest.container(Chart.render(), "auth-service"));
        assertEquals(AUTH_DB_SECRET + "/username", refs.get("IDENTITY_DB_USER"));
        assertEquals(AUTH_DB_SECRET + "/password", refs.get("IDENTITY_DB_PASSWORD"));
        // test-secrets.yaml names an existing Secret (the generated one needs the lookup, see FakeCluster).
        assertEquals("test-fastpath-keys/keys", refs.get("IDENTITY_AUTH_FAST_PATH_KEYS"));
        Map<String, String> config = ServicesTest.env(Chart.render(), "auth-service");
        assertEquals("true", config.get("IDENTITY_AUTH_FAST_PATH_ENABLED"));
        assertFalse(config.containsKey("IDENTITY_AUTH_FAST_PATH_CURRENT_KEY"), "one key: the service takes it as current");
        assertFalse(config.containsKey("IDENTITY_DB_USER"), "the role comes from its Secret only");
    }

    @Test
    void theEnvironmentNamesAreTheOnesTheServicesRead() {
        // auth-service's datasource user and password (both datasources use them).
        String auth = Chart.read(Chart.REPO.resolve("auth-service/src/main/resources/application.properties"));
        assertTrue(auth.contains("quarkus.datasource.username=${IDENTITY_DB_USER:"), "auth-service reads IDENTITY_DB_USER");
        assertTrue(auth.contains("quarkus.datasource.password=${IDENTITY_DB_PASSWORD:"), "auth-service reads IDENTITY_DB_PASSWORD");
        assertTrue(auth.contains("quarkus.datasource.\"verifiers\".username=${quarkus.datasource.username}"));
        // registration-service's Flyway placeholder for the role V2 grants to.
        String registration = Chart.read(Chart.REPO.resolve("registration-service/src/main/resources/application.properties"));
        assertTrue(registration.contains("placeholders.authRole=${IDENTITY_AUTH_DB_USER:"), "registration-service reads IDENTITY_AUTH_DB_USER");
        // The fast path's settings: @ConfigMapping(prefix = "identity.auth") with fastPath() { enabled(), keys(),
        // currentKey() }, which SmallRye Config reads from these environment variables.
        String config = Chart.read(Chart.REPO.resolve("auth-service/src/main/java/io/deviceidentity/auth/AuthConfig.java"));
        assertTrue(config.contains("@ConfigMapping(prefix = \"identity.auth\")"));
        assertTrue(config.contains("FastPath fastPath();"));
        String fastPath = config.substring(config.indexOf("interface FastPath"));
        assertTrue(fastPath.contains("boolean enabled();"));
        assertTrue(fastPath.contains("Optional<String> keys();"));
        assertTrue(fastPath.contains("Optional<String> currentKey();"));
        assertEquals("IDENTITY_AUTH_FAST_PATH_ENABLED", envName("identity.auth.fast-path.enabled"));
        assertEquals("IDENTITY_AUTH_FAST_PATH_KEYS", envName("identity.auth.fast-path.keys"));
        assertEquals("IDENTITY_AUTH_FAST_PATH_CURRENT_KEY", envName("identity.auth.fast-path.current-key"));

        Chart.Rendered rendered = Chart.render(Chart.set("authService.fastPath.currentKey", "test-1"));
        assertTrue(secretRefs(ServicesTest.container(rendered, "auth-service")).containsKey(envName("identity.auth.fast-path.keys")));
        Map<String, String> env = ServicesTest.env(rendered, "auth-service");
        assertEquals("true", env.get(envName("identity.auth.fast-path.enabled")));
        assertEquals("test-1", env.get(envName("identity.auth.fast-path.current-key")));
        assertEquals("identity_auth", ServicesTest.env(rendered, "registration-service").get("IDENTITY_AUTH_DB_USER"));
    }

    @Test
    void theAuthRoleHasItsOwnSecretAndNameEverywhere() {
        Chart.Rendered rendered = Chart.render(Chart.set("database.auth.user", "device_auth"));
        Secret secret = rendered.get(Secret.class, AUTH_DB_SECRET);
        assertEquals("device_auth", PgBouncerTest.decode(secret, "username"));
        assertEquals("test-auth-db-password", PgBouncerTest.decode(secret, "password"));
        assertEquals("device_auth", ServicesTest.env(rendered, "registration-service").get("IDENTITY_AUTH_DB_USER"));
        assertEquals("identity", PgBouncerTest.decode(rendered.get(Secret.class, Chart.name("db")), "username"),
                "the owner's Secret is unchanged");
    }

    @Test
    void withTheFastPathOffThereIsNoKeyAndNoKeySecret() {
        Chart.Rendered rendered = FakeCluster.empty(tempDir).render(Chart.set("authService.fastPath.enabled", false,
                "authService.fastPath.currentKey", "k1"));
        rendered.assertAbsent(Secret.class, KEYS_SECRET);
        Map<String, String> refs = secretRefs(ServicesTest.container(rendered, "auth-service"));
        assertFalse(refs.containsKey("IDENTITY_AUTH_FAST_PATH_KEYS"));
        assertEquals(AUTH_DB_SECRET + "/password", refs.get("IDENTITY_DB_PASSWORD"), "still its own role");
        Map<String, String> env = ServicesTest.env(rendered, "auth-service");
        assertEquals("false", env.get("IDENTITY_AUTH_FAST_PATH_ENABLED"));
        assertFalse(env.containsKey("IDENTITY_AUTH_FAST_PATH_CURRENT_KEY"));
    }

    // ----- The role in the bundled PostgreSQL ---------------------------------------------------------------------

    @Test
    void thePostgresqlPodCreatesTheAuthRoleAndRegistrationServiceWaitsForItBeforeItMigrates() {
        // The bundled PostgreSQL's pod makes both roles as its bootstrap superuser, over its own socket
        // (TlsChartTest checks that neither is a superuser).
        PodSpec postgres = Chart.render().get(StatefulSet.class, Chart.name("postgresql")).getSpec().getTemplate().getSpec();
        Container roles = postgres.getContainers().stream().filter(c -> c.getName().equals("roles")).findFirst().orElseThrow();
        assertEquals("postgres:17.5-alpine", roles.getImage(), "the bundled PostgreSQL's image, for its psql");
        String script = String.join("\n", roles.getArgs());
        assertTrue(script.contains("SELECT format('CREATE ROLE %I LOGIN', :'auth_user') WHERE NOT EXISTS"), script);
        assertTrue(script.contains("ALTER ROLE :\"auth_user\" WITH LOGIN NOSUPERUSER"), script);
        assertTrue(script.contains("\\getenv auth_password AUTH_DB_PASSWORD"), "the password never appears in the spec");
        assertTrue(script.contains("until psql"), "retried while PostgreSQL starts");
        Map<String, String> refs = secretRefs(roles);
        assertEquals(AUTH_DB_SECRET + "/username", refs.get("AUTH_DB_USER"));
        assertEquals(AUTH_DB_SECRET + "/password", refs.get("AUTH_DB_PASSWORD"));
        assertTrue(roles.getSecurityContext().getReadOnlyRootFilesystem());
        assertTrue(roles.getSecurityContext().getRunAsNonRoot());

        PodSpec pod = Chart.render().get(Deployment.class, Chart.name("registration-service")).getSpec().getTemplate().getSpec();
        assertEquals(1, pod.getInitContainers().size());
        Container init = pod.getInitContainers().get(0);
        assertEquals("db-roles", init.getName());
        String wait = String.join("\n", init.getArgs());
        assertTrue(wait.contains("FROM pg_roles WHERE rolname = :'auth_user' AND NOT rolsuper"), wait);
        assertTrue(wait.contains("until psql"), "retried while the roles are made");
        Map<String, String> initRefs = secretRefs(init);
        assertEquals(Chart.name("db") + "/username", initRefs.get("PGUSER"), "as the owner, not a superuser");
        assertEquals(Chart.name("db") + "/password", initRefs.get("PGPASSWORD"));
        Map<String, String> values = new LinkedHashMap<>();
        init.getEnv().stream().filter(e -> e.getValue() != null).forEach(e -> values.put(e.getName(), e.getValue()));
        assertEquals(Map.of("PGHOST", Chart.name("postgresql"), "PGPORT", "5432", "PGDATABASE", "identity", "PGCONNECT_TIMEOUT", "3",
                "PGSSLMODE", "verify-full", "PGSSLROOTCERT", "/etc/device-identity/schema-ca/ca.crt"), values,
                "it connects to PostgreSQL itself, verified against PostgreSQL's CA");
        assertTrue(init.getSecurityContext().getReadOnlyRootFilesystem());
        for (var mount : init.getVolumeMounts()) {
            assertTrue(pod.getVolumes().stream().anyMatch(v -> v.getName().equals(mount.getName())), mount.getName());
        }
        // auth-service has no such container.
        assertTrue(Chart.render().get(Deployment.class, Chart.name("auth-service")).getSpec().getTemplate().getSpec()
                .getInitContainers().isEmpty());
    }

    @Test
    void anExternalDatabaseGetsNoInitContainerItsOperatorCreatesTheRole() {
        Chart.Rendered rendered = Chart.render(Chart.set("postgresql.enabled", false, "tls.database.caSecret", "db-ca", "postgresql.external.host", "db.example.internal"));
        assertTrue(rendered.get(Deployment.class, Chart.name("registration-service")).getSpec().getTemplate().getSpec()
                .getInitContainers().isEmpty());
        assertEquals("identity_auth", ServicesTest.env(rendered, "registration-service").get("IDENTITY_AUTH_DB_USER"));
    }

    @Test
    void theNotesOfAnExternalDatabasePrintTheSqlToCreateTheRole() {
        // An external database needs a password source (the chart refuses one without): the owner's Secret here.
        String notes = NotesTest.notes(Map.of("postgresql.enabled", false, "tls.database.caSecret", "db-ca", "postgresql.external.host", "db.example.internal",
                "database.existingSecret", "identity-db"));
        assertTrue(notes.contains("CREATE ROLE identity_auth LOGIN PASSWORD"), notes);
        assertTrue(notes.contains("get secret " + AUTH_DB_SECRET), notes);
        assertFalse(NotesTest.notes(Map.of()).contains("CREATE ROLE"), "the bundled PostgreSQL gets it from the init container");
    }

    // ----- The generated key set ----------------------------------------------------------------------------------

    @Test
    void aFirstInstallGeneratesOneKeyOf32RandomBytesIntoASecretAuthServiceReads() {
        Chart.Rendered rendered = FakeCluster.empty(tempDir).render(Map.of());
        String keys = PgBouncerTest.decode(rendered.get(Secret.class, KEYS_SECRET), "keys");
        Matcher m = Pattern.compile("k1:([A-Za-z0-9+/]+={0,2})").matcher(keys);
        assertTrue(m.matches(), "one key with the id k1: " + keys.replaceAll(":.*", ":..."));
        assertEquals(32, Base64.getDecoder().decode(m.group(1)).length);
        assertEquals(KEYS_SECRET + "/keys", secretRefs(ServicesTest.container(rendered, "auth-service")).get("IDENTITY_AUTH_FAST_PATH_KEYS"));
        assertNotEquals(keys, PgBouncerTest.decode(FakeCluster.empty(tempDir).render(Map.of()).get(Secret.class, KEYS_SECRET), "keys"),
                "random on every first install");
        // The role's password is generated too, and PgBouncer's userlist has the same one.
        String password = PgBouncerTest.decode(rendered.get(Secret.class, AUTH_DB_SECRET), "password");
        assertEquals(32, password.length());
        assertTrue(PgBouncerTest.decode(rendered.get(Secret.class, Chart.name("pgbouncer")), "userlist.txt")
                .contains("\"identity_auth\" \"" + password + "\""));
    }

    @Test
    void anUpgradeKeepsTheKeySetAndEveryOtherGeneratedSecret() {
        Chart.Rendered install = FakeCluster.empty(tempDir).render(Map.of());
        List<Secret> secrets = install.all(Secret.class);
        Chart.Rendered upgrade = FakeCluster.holding(tempDir, secrets).render(Map.of());
        for (Secret before : secrets) {
            assertEquals(before.getData(), upgrade.get(Secret.class, before.getMetadata().getName()).getData(),
                    () -> before.getMetadata().getName() + " changed on upgrade");
        }
        assertEquals(checksum(install, "auth-service"), checksum(upgrade, "auth-service"), "an upgrade does not roll for nothing");
        assertEquals(checksum(install, "registration-service"), checksum(upgrade, "registration-service"));
    }

    @Test
    void aKeySetEditedWithKubectlIsKeptAndItsCurrentKeyIsChecked() {
        // Rotation, step 1: a second key added to the chart's Secret, the old one still current.
        FakeCluster cluster = FakeCluster.holding(tempDir, List.of(keysSecret("k1:" + KEY_A + ",k2:" + KEY_B)));
        Chart.Rendered rendered = cluster.render(Chart.set("authService.fastPath.currentKey", "k1"));
        assertEquals("k1:" + KEY_A + ",k2:" + KEY_B, PgBouncerTest.decode(rendered.get(Secret.class, KEYS_SECRET), "keys"));
        assertEquals("k1", ServicesTest.env(rendered, "auth-service").get("IDENTITY_AUTH_FAST_PATH_CURRENT_KEY"));
        // Step 2: the new one current.
        assertEquals("k2", ServicesTest.env(cluster.render(Chart.set("authService.fastPath.currentKey", "k2")), "auth-service")
                .get("IDENTITY_AUTH_FAST_PATH_CURRENT_KEY"));
        // The key set changed, so auth-service rolls (it reads its environment only at start).
        Chart.Rendered single = FakeCluster.holding(tempDir, List.of(keysSecret("k2:" + KEY_B))).render(Map.of());
        assertNotEquals(checksum(rendered, "auth-service"), checksum(single, "auth-service"));
        // Two keys and none named current: the service would refuse to start, so the chart refuses first.
        assertMentions(cluster.refusal(Map.of()), "fast path:", KEYS_SECRET, "holds several keys (k1, k2)",
                "authService.fastPath.currentKey");
        // A current key that is not in the set.
        assertMentions(cluster.refusal(Chart.set("authService.fastPath.currentKey", "k3")),
                "authService.fastPath.currentKey \"k3\" is not in the key set", "(ids: k1, k2)");
        assertMentions(FakeCluster.empty(tempDir).refusal(Chart.set("authService.fastPath.currentKey", "k2")),
                "\"k2\" is not in the key set", "(ids: k1)");
    }

    @Test
    void theFastPathOnWithoutAKeyIsRefused() {
        // The chart's Secret emptied (or its key deleted): the fast path would be on with no key.
        String message = FakeCluster.holding(tempDir, List.of(keysSecret(""))).refusal(Map.of());
        assertMentions(message, "fast path:", "authService.fastPath.enabled is true but the Secret " + KEYS_SECRET
                + " holds no key", "authService.fastPath.existingSecret", "authService.fastPath.enabled=false");
        // Switched off, the same cluster renders.
        FakeCluster.holding(tempDir, List.of(keysSecret(""))).render(Chart.set("authService.fastPath.enabled", false));
    }

    @Test
    void aKeySetTheServiceWouldRefuseIsRefusedNamingIdsNeverKeys() {
        String shortKey = Base64.getEncoder().encodeToString(new byte[31]);
        assertMentions(FakeCluster.holding(tempDir, List.of(keysSecret("k1:" + shortKey))).refusal(Map.of()),
                "key \"k1\"", "shorter than 32 bytes");
        String refusal = FakeCluster.holding(tempDir, List.of(keysSecret("bad id:" + KEY_A))).refusal(Map.of());
        assertMentions(refusal, "key #1", "not of the form id:base64key");
        assertFalse(refusal.contains(KEY_A), "a key never appears in a message");
        assertMentions(FakeCluster.holding(tempDir, List.of(keysSecret("k1:" + KEY_A + ",k1:" + KEY_B)))
                .refusal(Chart.set("authService.fastPath.currentKey", "k1")), "lists a key id twice");
        // Unpadded base64 is what Java's decoder also accepts: 43 characters = 32 bytes.
        FakeCluster.holding(tempDir, List.of(keysSecret("k1:" + KEY_A.replace("=", "")))).render(Map.of());
    }

    @Test
    void anExistingSecretIsUsedAsItIsAndTheChartGeneratesNone() {
        Chart.Rendered rendered = FakeCluster.empty(tempDir).render(Chart.set("authService.fastPath.existingSecret", "my-keys",
                "authService.fastPath.currentKey", "2026-12"));
        rendered.assertAbsent(Secret.class, KEYS_SECRET);
        assertEquals("my-keys/keys", secretRefs(ServicesTest.container(rendered, "auth-service")).get("IDENTITY_AUTH_FAST_PATH_KEYS"));
        assertEquals("2026-12", ServicesTest.env(rendered, "auth-service").get("IDENTITY_AUTH_FAST_PATH_CURRENT_KEY"));
    }

    @Test
    void theSchemaRefusesBadNamesAndIds() {
        assertMentions(Chart.refusal(Chart.set("authService.fastPath.existingSecret", "My Keys")), "/authService/fastPath/existingSecret");
        assertMentions(Chart.refusal(Chart.set("authService.fastPath.currentKey", "k 1")), "/authService/fastPath/currentKey");
        assertMentions(Chart.refusal(Chart.set("authService.fastPath.generateKey", false)), "generateKey");
        assertMentions(Chart.refusal(Chart.set("database.auth.user", "Auth-Role")), "/database/auth/user");
        assertMentions(Chart.refusal(Chart.set("database.auth.password", "with\"quote")), "/database/auth/password");
    }

    @Test
    void theAuthRoleMustNotBeTheOwner() {
        assertMentions(Chart.refusal(Chart.set("database.auth.user", "identity")),
                "database.auth.user \"identity\" is the owner role database.user");
    }

    // ----- helpers ------------------------------------------------------------------------------------------------

    /** The environment variable SmallRye Config reads a property from. */
    private static String envName(String property) {
        return property.replaceAll("[^A-Za-z0-9]", "_").toUpperCase(java.util.Locale.ROOT);
    }

    /** env name -> "secret/key" for the variables a container takes from Secrets. */
    static Map<String, String> secretRefs(Container c) {
        Map<String, String> refs = new LinkedHashMap<>();
        for (EnvVar e : c.getEnv()) {
            if (e.getValueFrom() != null && e.getValueFrom().getSecretKeyRef() != null) {
                refs.put(e.getName(), e.getValueFrom().getSecretKeyRef().getName() + "/" + e.getValueFrom().getSecretKeyRef().getKey());
            }
        }
        return refs;
    }

    private static Secret keysSecret(String keys) {
        return new SecretBuilder().withMetadata(new ObjectMetaBuilder().withName(KEYS_SECRET).build())
                .withData(Map.of("keys", Base64.getEncoder().encodeToString(keys.getBytes(StandardCharsets.UTF_8)))).build();
    }

    private static String checksum(Chart.Rendered rendered, String component) {
        return rendered.get(Deployment.class, Chart.name(component)).getSpec().getTemplate().getMetadata().getAnnotations()
                .get("checksum/secret");
    }

    private static void assertMentions(String message, String... parts) {
        for (String part : parts) {
            assertTrue(message.contains(part), () -> "expected \"" + part + "\" in:\n" + message);
        }
    }
}
