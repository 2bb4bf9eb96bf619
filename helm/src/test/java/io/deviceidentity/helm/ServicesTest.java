package io.deviceidentity.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpec;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;

/** auth-service and registration-service: what the chart promises for each. */
class ServicesTest {

    private static final Chart.Rendered DEFAULTS = Chart.render();

    @ParameterizedTest
    @ValueSource(strings = {"auth-service", "registration-service"})
    void eachServiceHasACpuHpaOnAutoscalingV2(String component) {
        HorizontalPodAutoscaler hpa = DEFAULTS.get(HorizontalPodAutoscaler.class, Chart.name(component));
        assertEquals("autoscaling/v2", hpa.getApiVersion());
        MetricSpec metric = hpa.getSpec().getMetrics().get(0);
        assertEquals("cpu", metric.getResource().getName());
        assertEquals("Utilization", metric.getResource().getTarget().getType());
        assertEquals(70, metric.getResource().getTarget().getAverageUtilization());
        // The HPA owns the replica count.
        assertNull(DEFAULTS.get(Deployment.class, Chart.name(component)).getSpec().getReplicas());
    }

    @Test
    void withoutAutoscalingTheDeploymentCarriesTheReplicaCount() {
        Chart.Rendered rendered = Chart.render(Chart.set("authService.autoscaling.enabled", false, "authService.replicas", 3));
        rendered.assertAbsent(HorizontalPodAutoscaler.class, Chart.name("auth-service"));
        assertEquals(3, rendered.get(Deployment.class, Chart.name("auth-service")).getSpec().getReplicas());
    }

    @ParameterizedTest
    @ValueSource(strings = {"auth-service", "registration-service"})
    void probesUseTheQuarkusHealthEndpointsOnTheServicePort(String component) {
        Container c = container(DEFAULTS, component);
        assertEquals("/q/health/started", c.getStartupProbe().getHttpGet().getPath());
        assertEquals("/q/health/live", c.getLivenessProbe().getHttpGet().getPath());
        assertEquals("/q/health/ready", c.getReadinessProbe().getHttpGet().getPath());
        // On the management interface's own port, not on the HTTPS port that serves the API.
        assertEquals("management", c.getReadinessProbe().getHttpGet().getPort().getStrVal());
        int port = component.equals("auth-service") ? 8081 : 8082;
        assertEquals(port, c.getPorts().get(0).getContainerPort());
        assertEquals("https", c.getPorts().get(0).getName());
    }

    @ParameterizedTest
    @ValueSource(strings = {"auth-service", "registration-service"})
    void containersRunNonRootWithAReadOnlyRootFilesystem(String component) {
        PodSpec pod = DEFAULTS.get(Deployment.class, Chart.name(component)).getSpec().getTemplate().getSpec();
        assertTrue(pod.getSecurityContext().getRunAsNonRoot());
        assertNotEquals(0L, pod.getSecurityContext().getRunAsUser());
        assertEquals("RuntimeDefault", pod.getSecurityContext().getSeccompProfile().getType());
        assertFalse(pod.getAutomountServiceAccountToken());
        Container c = pod.getContainers().get(0);
        assertTrue(c.getSecurityContext().getReadOnlyRootFilesystem());
        assertFalse(c.getSecurityContext().getAllowPrivilegeEscalation());
        assertEquals(List.of("ALL"), c.getSecurityContext().getCapabilities().getDrop());
        assertNotNull(c.getResources().getLimits().get("cpu"));
        assertNotNull(c.getResources().getLimits().get("memory"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"auth-service", "registration-service"})
    void eachServiceHasAPodDisruptionBudget(String component) {
        PodDisruptionBudget pdb = DEFAULTS.get(PodDisruptionBudget.class, Chart.name(component));
        assertEquals("policy/v1", pdb.getApiVersion());
    }

    @Test
    void authServiceGetsTheWholeEnvironmentContract() {
        Map<String, String> env = env(DEFAULTS, "auth-service");
        assertEquals(Map.ofEntries(
                Map.entry("AUTH_PORT", "8081"),
                Map.entry("IDENTITY_DB_HOST", Chart.name("pgbouncer")),
                Map.entry("IDENTITY_DB_PORT", "5432"),
                Map.entry("IDENTITY_DB_NAME", "identity"),
                // IDENTITY_DB_USER (auth-service's own role) comes from its Secret, with the password (FastPathChartTest).
                Map.entry("QUARKUS_DATASOURCE_JDBC_MAX_SIZE", "10"),
                Map.entry("QUARKUS_DATASOURCE_JDBC_ACQUISITION_TIMEOUT", "1s"),
                Map.entry("IDENTITY_OVERLOAD_DEADLINE", "4s"),
                Map.entry("IDENTITY_OVERLOAD_BCRYPT_CONCURRENCY", "2"),
                Map.entry("IDENTITY_OVERLOAD_BCRYPT_QUEUE", "20"),
                Map.entry("IDENTITY_OVERLOAD_BCRYPT_EXPECTED_DURATION", "100ms"),
                Map.entry("IDENTITY_OVERLOAD_BCRYPT_MAX_WAIT", "1s"),
                Map.entry("IDENTITY_OVERLOAD_BCRYPT_INTERVAL", "100ms"),
                Map.entry("IDENTITY_AUTH_UNKNOWN_DEVICE", "deny"),
                Map.entry("IDENTITY_AUTH_MAX_SESSION_LIFE", "24h"),
                Map.entry("IDENTITY_AUTH_RATE_LIMIT_ATTEMPTS", "10"),
                Map.entry("IDENTITY_AUTH_RATE_LIMIT_PERIOD", "1m"),
                Map.entry("IDENTITY_AUTH_RATE_LIMIT_ENABLED", "true"),
                Map.entry("IDENTITY_AUTH_RATE_LIMIT_CLIENT_ATTEMPTS", "100"),
                Map.entry("IDENTITY_AUTH_RATE_LIMIT_SOURCE_FAILURES", "1000"),
                Map.entry("IDENTITY_AUTH_RATE_LIMIT_SOURCE_GUESSES", "10"),
                Map.entry("IDENTITY_AUTH_RATE_LIMIT_MAX_TRACKED_DEVICES", "200000"),
                Map.entry("IDENTITY_AUTH_FAST_PATH_ENABLED", "true"),
                Map.entry("IDENTITY_SCHEMA_MIGRATE", "false"),
                // TLS and the management port (TlsChartTest has the details).
                Map.entry("IDENTITY_TLS_ENABLED", "true"),
                Map.entry("IDENTITY_TLS_CERT_FILE", "/etc/device-identity/tls/tls.crt"),
                Map.entry("IDENTITY_TLS_KEY_FILE", "/etc/device-identity/tls/tls.key"),
                Map.entry("IDENTITY_TLS_RELOAD_PERIOD", "1m"),
                Map.entry("IDENTITY_TLS_CLIENT_AUTH", "required"),
                Map.entry("IDENTITY_TLS_CLIENT_CA_FILE", "/etc/device-identity/client-ca/ca.crt"),
                Map.entry("IDENTITY_DB_SSLMODE", "verify-full"),
                Map.entry("IDENTITY_DB_SSLROOTCERT", "/etc/device-identity/db-ca/ca.crt"),
                Map.entry("IDENTITY_MANAGEMENT_PORT", "9000")), env);
    }

    @Test
    void registrationServiceMigratesDirectlyAgainstPostgresql() {
        Map<String, String> env = env(DEFAULTS, "registration-service");
        assertEquals("8082", env.get("REGISTRATION_PORT"));
        assertEquals(Chart.name("pgbouncer"), env.get("IDENTITY_DB_HOST"));
        assertEquals("identity", env.get("IDENTITY_DB_USER"), "the owner role");
        assertEquals("identity_auth", env.get("IDENTITY_AUTH_DB_USER"), "the role V2 grants auth-service's privileges to");
        assertEquals("true", env.get("IDENTITY_SCHEMA_MIGRATE"));
        assertEquals(Chart.name("postgresql"), env.get("IDENTITY_SCHEMA_HOST"));
        assertEquals("5432", env.get("IDENTITY_SCHEMA_PORT"));
        assertEquals("1", env.get("IDENTITY_OVERLOAD_BCRYPT_CONCURRENCY"), "ceil(limits.cpu 1)");
        // A provisioning batch waits for its answers: admitted while it can start within 3 s, in both regimes.
        assertEquals("30", env.get("IDENTITY_OVERLOAD_BCRYPT_QUEUE"), "ceil(maxWait 3000 ms / 100 ms) x 1");
        assertEquals("3s", env.get("IDENTITY_OVERLOAD_BCRYPT_MAX_WAIT"));
        assertEquals("3s", env.get("IDENTITY_OVERLOAD_BCRYPT_TARGET_WAIT"));
        assertFalse(env.containsKey("IDENTITY_AUTH_UNKNOWN_DEVICE"));
    }

    @Test
    void externalDatabaseIsWhereMigrationsGo() {
        Map<String, String> env = env(Chart.render(Chart.set("postgresql.enabled", false, "tls.database.caSecret", "db-ca",
                "postgresql.external.host", "db.example.internal", "postgresql.external.port", 6543)), "registration-service");
        assertEquals("db.example.internal", env.get("IDENTITY_SCHEMA_HOST"));
        assertEquals("6543", env.get("IDENTITY_SCHEMA_PORT"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"auth-service", "registration-service"})
    void passwordsAndTokensComeFromSecretsNotFromTheConfigMap(String component) {
        Container c = container(DEFAULTS, component);
        Set<String> fromSecrets = Set.copyOf(c.getEnv().stream()
                .filter(e -> e.getValueFrom() != null && e.getValueFrom().getSecretKeyRef() != null)
                .map(EnvVar::getName).toList());
        assertTrue(fromSecrets.contains("IDENTITY_DB_PASSWORD"));
        assertEquals(component.equals("registration-service"), fromSecrets.contains("REGISTRATION_TOKENS"));
        assertTrue(c.getEnv().stream().allMatch(e -> e.getValue() == null), "no literal env values: " + c.getEnv());
        Map<String, String> config = env(DEFAULTS, component);
        assertFalse(config.containsKey("IDENTITY_DB_PASSWORD"));
        assertFalse(config.values().contains("test-db-password"));
    }

    @Test
    void bcryptConcurrencyIsTheCeilingOfTheCpuLimitAndTheQueueCapFollowsMaxWaitNotTheDeadline() {
        Map<String, String> env = env(Chart.render(Chart.set("authService.resources.limits.cpu", "1500m",
                "authService.overload.deadline", "5s", "bcrypt.millis", 75)), "auth-service");
        assertEquals("2", env.get("IDENTITY_OVERLOAD_BCRYPT_CONCURRENCY"), "ceil(1.5)");
        assertEquals("28", env.get("IDENTITY_OVERLOAD_BCRYPT_QUEUE"), "ceil(maxWait 1000 / 75) x 2; the deadline plays no part");
        assertEquals("75ms", env.get("IDENTITY_OVERLOAD_BCRYPT_EXPECTED_DURATION"));
        assertEquals("5s", env.get("IDENTITY_OVERLOAD_DEADLINE"));
        Map<String, String> longerWait = env(Chart.render(Chart.set("authService.overload.bcrypt.maxWait", "2500ms")), "auth-service");
        assertEquals("2500ms", longerWait.get("IDENTITY_OVERLOAD_BCRYPT_MAX_WAIT"));
        assertEquals("50", longerWait.get("IDENTITY_OVERLOAD_BCRYPT_QUEUE"), "ceil(2500 / 100) x 2");
    }

    @Test
    void targetWaitIsLeftToTheServiceUnlessSetAndIntervalIsPassedThrough() {
        assertFalse(env(DEFAULTS, "auth-service").containsKey("IDENTITY_OVERLOAD_BCRYPT_TARGET_WAIT"),
                "unset: the service uses two measured hash times");
        Map<String, String> env = env(Chart.render(Chart.set("authService.overload.bcrypt.targetWait", "250ms",
                "authService.overload.bcrypt.interval", "200ms")), "auth-service");
        assertEquals("250ms", env.get("IDENTITY_OVERLOAD_BCRYPT_TARGET_WAIT"));
        assertEquals("200ms", env.get("IDENTITY_OVERLOAD_BCRYPT_INTERVAL"));
        Map<String, String> registration = env(Chart.render(Chart.set("registrationService.overload.bcrypt.maxWait", "2s",
                "registrationService.overload.bcrypt.targetWait", "2s")),
                "registration-service");
        assertEquals("2s", registration.get("IDENTITY_OVERLOAD_BCRYPT_MAX_WAIT"));
        assertEquals("20", registration.get("IDENTITY_OVERLOAD_BCRYPT_QUEUE"), "ceil(2000 / 100) x 1");
    }

    @Test
    void explicitBcryptConcurrencyAndQueueWinOverTheDerivation() {
        Map<String, String> env = env(Chart.render(Chart.set("authService.overload.bcrypt.concurrency", 4,
                "authService.overload.bcrypt.queue", 20)), "auth-service");
        assertEquals("4", env.get("IDENTITY_OVERLOAD_BCRYPT_CONCURRENCY"));
        assertEquals("20", env.get("IDENTITY_OVERLOAD_BCRYPT_QUEUE"));
    }

    @Test
    void aChangedSettingChangesTheConfigChecksumAndSoRollsThePods() {
        String before = checksum(DEFAULTS, "auth-service", "checksum/config");
        assertEquals(before, checksum(Chart.render(), "auth-service", "checksum/config"), "stable across renders");
        assertNotEquals(before, checksum(Chart.render(Chart.set("authService.db.poolMaxSize", 9)), "auth-service", "checksum/config"));
        // auth-service reads its own role's password, registration-service the owner's (and sets auth-service's role
        // password with its init container).
        Chart.Rendered ownerChanged = Chart.render(Chart.set("database.password", "another-password"));
        Chart.Rendered authChanged = Chart.render(Chart.set("database.auth.password", "another-auth-password"));
        assertNotEquals(checksum(DEFAULTS, "auth-service", "checksum/secret"), checksum(authChanged, "auth-service", "checksum/secret"));
        assertEquals(checksum(DEFAULTS, "auth-service", "checksum/secret"), checksum(ownerChanged, "auth-service", "checksum/secret"));
        assertNotEquals(checksum(DEFAULTS, "registration-service", "checksum/secret"),
                checksum(ownerChanged, "registration-service", "checksum/secret"));
        assertNotEquals(checksum(DEFAULTS, "registration-service", "checksum/secret"),
                checksum(authChanged, "registration-service", "checksum/secret"));
    }

    static Container container(Chart.Rendered rendered, String component) {
        return rendered.get(Deployment.class, Chart.name(component)).getSpec().getTemplate().getSpec().getContainers().get(0);
    }

    /** The environment from the component's ConfigMap (envFrom). */
    static Map<String, String> env(Chart.Rendered rendered, String component) {
        Container c = container(rendered, component);
        assertEquals(Chart.name(component), c.getEnvFrom().get(0).getConfigMapRef().getName());
        return rendered.get(ConfigMap.class, Chart.name(component)).getData();
    }

    private static String checksum(Chart.Rendered rendered, String component, String key) {
        String value = rendered.get(Deployment.class, Chart.name(component)).getSpec().getTemplate().getMetadata().getAnnotations().get(key);
        assertNotNull(value, key);
        return value;
    }
}
