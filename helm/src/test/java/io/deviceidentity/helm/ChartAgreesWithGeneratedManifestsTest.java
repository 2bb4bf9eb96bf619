package io.deviceidentity.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.opentest4j.AssertionFailedError;

import io.deviceidentity.auth.AuthConfig;
import io.deviceidentity.auth.StandbyReadsConfig;
import io.deviceidentity.auth.mtls.MutualTlsConfig;
import io.deviceidentity.management.ManagementConfig;
import io.deviceidentity.overload.DatabaseGuardConfig;
import io.deviceidentity.overload.OverloadConfig;
import io.deviceidentity.readiness.ReadinessConfig;
import io.deviceidentity.registration.RegistrationConfig;
import io.deviceidentity.registration.kicks.KickConfig;
import io.deviceidentity.tls.TlsConfig;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.apps.Deployment;

/**
 * The chart deploys each service the way the service describes itself: quarkus-kubernetes writes
 * target/kubernetes/kubernetes.yml at `mvn package` from the service's application.properties (port from
 * quarkus.http.port, probes from smallrye-health, the environment it expects), and the chart's Deployment, Service and
 * ServiceMonitor must agree with it; every variable the chart sets must be one the service reads, and every one the
 * service needs without a default must be set. A change to a service that the chart does not follow fails here.
 */
class ChartAgreesWithGeneratedManifestsTest {

    /** The chart as deployed, with the ServiceMonitors on so that the metrics path is compared too. */
    private static final Chart.Rendered CHART = Chart.render(Chart.set("metrics.serviceMonitor.enabled", true));

    /** A service, its @ConfigMapping interfaces, and the modules whose sources hold them. */
    enum Svc {
        AUTH("auth-service", List.of(AuthConfig.class, StandbyReadsConfig.class, MutualTlsConfig.class, OverloadConfig.class,
                DatabaseGuardConfig.class, ReadinessConfig.class, TlsConfig.class, ManagementConfig.class)),
        REGISTRATION("registration-service", List.of(RegistrationConfig.class, KickConfig.class, OverloadConfig.class,
                DatabaseGuardConfig.class, ReadinessConfig.class, TlsConfig.class, ManagementConfig.class));

        final String name;
        final List<Class<?>> mappings;

        Svc(String name, List<Class<?>> mappings) {
            this.name = name;
            this.mappings = mappings;
        }

        ServiceEnvironment environment() {
            return ServiceEnvironment.of(name, mappings);
        }

        GeneratedManifest manifest() {
            return GeneratedManifest.of(name);
        }
    }

    @ParameterizedTest
    @MethodSource("services")
    void theChartFollowsTheManifestTheServiceGeneratesFromItsConfiguration(Svc svc) {
        assertEquals(List.of(), ManifestAgreement.disagreements(svc.manifest(), CHART, svc.environment()),
                () -> "the chart disagrees with " + svc.manifest().file());
    }

    @ParameterizedTest
    @MethodSource("servicesAndValueSets")
    void everyValueSetSetsOnlyWhatTheServiceReadsAndAllItRequires(Svc svc, Path values) {
        assertEquals(List.of(), ManifestAgreement.chartEnvironmentProblems(Chart.render(Map.of(), values), svc.name,
                svc.environment()), () -> values.getFileName().toString());
    }

    @ParameterizedTest
    @MethodSource("services")
    void theComparisonCoversEveryConfigMappingOfTheService(Svc svc) {
        Set<String> listed = new TreeSet<>(svc.mappings.stream().map(Class::getName).toList());
        assertEquals(ServiceEnvironment.configMappingClassesInSources(svc.name, "identity-core"), listed,
                "a @ConfigMapping that is not listed in Svc would make its variables look unread");
    }

    @ParameterizedTest
    @MethodSource("services")
    void theGeneratedManifestDescribesTheServiceNotDefaults(Svc svc) {
        // Guards against a comparison that passes because both sides are empty or quarkus-kubernetes' defaults.
        Container c = svc.manifest().container();
        assertEquals(svc == Svc.AUTH ? 8081 : 8082, namedPort(c, "http").getContainerPort(), "quarkus.http.port's default");
        assertEquals(9000, namedPort(c, "management").getContainerPort(), "the management interface the probes use");
        assertEquals("/q/health/ready", c.getReadinessProbe().getHttpGet().getPath());
        assertTrue(c.getEnv().stream().anyMatch(e -> e.getName().equals("IDENTITY_OVERLOAD_BCRYPT_QUEUE")), c.getEnv()::toString);
        assertTrue(svc.manifest().ofKind("Job").isEmpty(), "no Flyway init Job: the services migrate in-process or not at all");
    }

    // --- The comparison fails where it must (deliberately broken inputs) ---------------------------------------

    @Test
    void aServiceThatMovesItsPortOrAProbeIsCaught() {
        GeneratedManifest moved = Svc.AUTH.manifest();
        Container c = moved.container();
        namedPort(c, "http").setContainerPort(9090);
        c.getReadinessProbe().getHttpGet().setPath("/q/health/well");
        c.getLivenessProbe().getHttpGet().setPort(new IntOrString(9090));
        List<String> problems = ManifestAgreement.disagreements(moved, CHART, Svc.AUTH.environment());
        assertTrue(problems.contains("auth-service: container port http is 9090 in the service's manifest, 8081 in the chart"), problems::toString);
        assertTrue(problems.contains("auth-service: readinessProbe path is /q/health/well in the service's manifest, /q/health/ready in the chart"),
                problems::toString);
        assertTrue(problems.contains("auth-service: livenessProbe port (as a container port) is 9090 in the service's manifest, 9000 in the chart"),
                problems::toString);
    }

    @Test
    void aSettingTheServiceNewlyExpectsIsCaughtUntilTheChartSetsIt() {
        GeneratedManifest expectsMore = Svc.AUTH.manifest();
        expectsMore.container().getEnv().add(new EnvVarBuilder().withName("IDENTITY_OVERLOAD_DATABASE_MAX_WAIT")
                .withNewValueFrom().withNewConfigMapKeyRef("IDENTITY_OVERLOAD_DATABASE_MAX_WAIT", "auth-service", null).endValueFrom().build());
        expectsMore.container().getEnv().add(new EnvVarBuilder().withName("IDENTITY_NOT_A_SETTING").withValue("1").build());
        List<String> problems = ManifestAgreement.disagreements(expectsMore, CHART, Svc.AUTH.environment());
        assertTrue(problems.contains("auth-service: the service's manifest sets IDENTITY_OVERLOAD_DATABASE_MAX_WAIT, the chart does not"),
                problems::toString);
        assertTrue(problems.contains("auth-service: the generated manifest sets IDENTITY_NOT_A_SETTING, which the service does not read"),
                problems::toString);
    }

    @Test
    void aVariableTheChartSetsButTheServiceDoesNotReadIsCaught() {
        // extraEnv is the chart's own way in; a misspelt name would otherwise be ignored by the service in silence.
        Chart.Rendered misspelt = Chart.render(Chart.set("metrics.serviceMonitor.enabled", true,
                "authService.extraEnv[0].name", "IDENTITY_OVERLOAD_DEADLIN", "authService.extraEnv[0].value", "5s"));
        List<String> problems = ManifestAgreement.disagreements(Svc.AUTH.manifest(), misspelt, Svc.AUTH.environment());
        assertTrue(problems.stream().anyMatch(p -> p.startsWith(
                "auth-service: the chart sets IDENTITY_OVERLOAD_DEADLIN, which the service does not read")), problems::toString);
    }

    @Test
    void aRequiredVariableTheChartDropsOrASecretItInlinesIsCaught() {
        Chart.Rendered broken = Chart.render(Chart.set("metrics.serviceMonitor.enabled", true));
        Container c = broken.get(Deployment.class, Chart.name("registration-service")).getSpec().getTemplate().getSpec()
                .getContainers().get(0);
        c.getEnv().removeIf(e -> e.getName().equals("REGISTRATION_TOKENS"));
        c.getEnv().replaceAll(e -> e.getName().equals("IDENTITY_DB_PASSWORD") ? new EnvVarBuilder().withName(e.getName())
                .withValue("inline").build() : e);
        List<String> problems = ManifestAgreement.disagreements(Svc.REGISTRATION.manifest(), broken, Svc.REGISTRATION.environment());
        assertTrue(problems.contains("registration-service: the service requires REGISTRATION_TOKENS (no default), which the chart does not set"),
                problems::toString);
        assertTrue(problems.contains("registration-service: IDENTITY_DB_PASSWORD comes from a Secret in the service's manifest, but not in the chart"),
                problems::toString);
    }

    @Test
    void aMissingManifestFailsWithTheWayToBuildItInsteadOfPassing(@TempDir Path dir) {
        AssertionFailedError e = assertThrows(AssertionFailedError.class,
                () -> GeneratedManifest.load("auth-service", dir.resolve("target/kubernetes/kubernetes.yml")));
        assertTrue(e.getMessage().contains("auth-service has not been packaged"), e.getMessage());
        assertTrue(e.getMessage().contains("mvn -B verify"), e.getMessage());
    }

    @Test
    void whatAServiceReadsAndRequiresComesFromItsPlaceholdersKeysAndConfigMappings() {
        ServiceEnvironment env = ServiceEnvironment.of("example", String.join("\n",
                "identity.db.host=127.0.0.1",
                "quarkus.datasource.password=${IDENTITY_DB_PASSWORD:dev}",
                "identity.registration.tokens=${REGISTRATION_TOKENS}",
                "quarkus.kubernetes.env.vars.build-only=1",
                "%test.identity.db.port=${TEST_ONLY}"), List.of(RegistrationConfig.class));
        assertTrue(env.reads().containsAll(List.of("IDENTITY_DB_HOST", "IDENTITY_DB_PASSWORD", "QUARKUS_DATASOURCE_PASSWORD",
                "REGISTRATION_TOKENS", "IDENTITY_REGISTRATION_BCRYPT_COST", "IDENTITY_REGISTRATION_MIN_PASSWORD_LENGTH")), env::toString);
        assertFalse(env.reads().contains("TEST_ONLY"), "another profile's placeholder");
        assertFalse(env.reads().contains("QUARKUS_KUBERNETES_ENV_VARS_BUILD_ONLY"), "a build-time key");
        // tokens() has no default but application.properties sets it, to a placeholder without one.
        assertEquals(Set.of("REGISTRATION_TOKENS"), env.required());
        assertEquals(Set.of("IDENTITY_REGISTRATION_TOKENS"),
                ServiceEnvironment.of("example", "", List.of(RegistrationConfig.class)).required());
    }

    /** quarkus-kubernetes lists the http and management ports in no fixed order (it differed between two clean builds). */
    private static ContainerPort namedPort(Container c, String name) {
        return c.getPorts().stream().filter(p -> name.equals(p.getName())).findFirst()
                .orElseThrow(() -> new AssertionFailedError("no container port named " + name + " in " + c.getPorts()));
    }

    static Stream<Svc> services() {
        return Stream.of(Svc.values());
    }

    static Stream<Arguments> servicesAndValueSets() throws IOException {
        List<Path> files;
        try (Stream<Path> list = Files.list(Chart.DIR.resolve("ci"))) {
            files = list.filter(f -> f.toString().endsWith(".yaml")).sorted().toList();
        }
        return services().flatMap(svc -> files.stream().map(f -> Arguments.of(svc, f)));
    }
}
