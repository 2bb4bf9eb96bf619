package io.deviceidentity.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;

/**
 * The database password's source: generated (bundled PostgreSQL only), database.password, or database.existingSecret,
 * which the chart never reads: every pod takes the password from that Secret, PgBouncer writes its userlist from it
 * at start. An external database without a password source is refused at render time.
 */
class ExternalDatabaseTest {

    private static final String EXISTING = "identity-db";

    @Test
    void anExternalDatabaseWithoutAPasswordSourceIsRefused() {
        String message = Chart.refusal(Chart.set("postgresql.enabled", false, "tls.database.caSecret", "db-ca", "postgresql.external.host", "db.example",
                "database.password", ""));
        assertTrue(message.contains("database: postgresql.enabled=false but neither database.existingSecret nor"
                + " database.password is set"), message);
        assertTrue(message.contains("Your own PostgreSQL"), message);
    }

    @Test
    void anExternalDatabaseWithAPasswordOrAnExistingSecretRenders() {
        Chart.render(Chart.set("postgresql.enabled", false, "tls.database.caSecret", "db-ca", "postgresql.external.host", "db.example"));
        Chart.render(Chart.set("postgresql.enabled", false, "tls.database.caSecret", "db-ca", "postgresql.external.host", "db.example",
                "database.password", "", "database.existingSecret", EXISTING));
    }

    @Test
    void withAnExistingSecretEveryPodReadsThePasswordFromItAndTheChartStoresItNowhere() {
        // database.password (from the test secrets) is ignored: existingSecret wins.
        Chart.Rendered rendered = Chart.render(Chart.set("postgresql.enabled", false, "tls.database.caSecret", "db-ca",
                "postgresql.external.host", "db.example", "database.existingSecret", EXISTING,
                "database.existingSecretKey", "pw", "pgbouncer.exporter.enabled", true));

        // registration-service logs in as the owner, from the existing Secret; auth-service keeps its own role's
        // Secret, which the chart owns (database.auth.*).
        EnvVar owner = env(container(rendered.get(Deployment.class, Chart.name("registration-service")).getSpec()
                .getTemplate().getSpec(), "registration-service"), "IDENTITY_DB_PASSWORD");
        assertEquals(EXISTING, owner.getValueFrom().getSecretKeyRef().getName());
        assertEquals("pw", owner.getValueFrom().getSecretKeyRef().getKey());
        EnvVar auth = env(container(rendered.get(Deployment.class, Chart.name("auth-service")).getSpec().getTemplate()
                .getSpec(), "auth-service"), "IDENTITY_DB_PASSWORD");
        assertEquals(Chart.name("db-auth"), auth.getValueFrom().getSecretKeyRef().getName());

        Secret db = rendered.get(Secret.class, Chart.name("db"));
        assertFalse(db.getData().containsKey("password"), "the chart's db Secret carries a password");
        Secret pgbouncer = rendered.get(Secret.class, Chart.name("pgbouncer"));
        assertFalse(pgbouncer.getData().containsKey("userlist.txt"));
        // The exporter reads the console as PgBouncer's own stats user, whose password the chart holds.
        assertTrue(PgBouncerTest.decode(pgbouncer, "exporter-connection-string").startsWith("postgres://pgbouncer_stats:"));
        String ini = new String(Base64.getDecoder().decode(pgbouncer.getData().get("pgbouncer.ini")),
                StandardCharsets.UTF_8);
        assertTrue(ini.contains("auth_file = /run/pgbouncer/userlist.txt"), ini);
        for (Secret secret : rendered.all(Secret.class)) {
            secret.getData().values().forEach(value -> assertFalse(
                    new String(Base64.getDecoder().decode(value), StandardCharsets.UTF_8).contains("test-db-password"),
                    secret.getMetadata().getName() + " carries database.password although existingSecret is set"));
        }

        PodSpec pod = rendered.get(Deployment.class, Chart.name("pgbouncer")).getSpec().getTemplate().getSpec();
        Container pgb = container(pod, "pgbouncer");
        EnvVar pgbPassword = env(pgb, "PGBOUNCER_DB_PASSWORD");
        assertEquals(EXISTING, pgbPassword.getValueFrom().getSecretKeyRef().getName());
        assertEquals("pw", pgbPassword.getValueFrom().getSecretKeyRef().getKey());
        assertEquals("identity_auth", env(pgb, "PGBOUNCER_AUTH_DB_USER").getValue());
        assertEquals(Chart.name("db-auth"), env(pgb, "PGBOUNCER_AUTH_DB_PASSWORD").getValueFrom().getSecretKeyRef()
                .getName(), "auth-service's role keeps the chart's own Secret");
        String script = String.join(" ", pgb.getCommand());
        assertTrue(script.contains("$PGBOUNCER_AUTH_DB_USER"), "the userlist lacks auth-service's role: " + script);
        assertTrue(script.contains(">/run/pgbouncer/userlist.txt") && script.contains("exec pgbouncer /etc/pgbouncer/pgbouncer.ini"),
                script);
        assertTrue(pgb.getVolumeMounts().stream().anyMatch(m -> m.getMountPath().equals("/run/pgbouncer")));
        assertEquals("Memory", pod.getVolumes().stream().filter(v -> v.getName().equals("userlist")).findFirst()
                .orElseThrow().getEmptyDir().getMedium());
        assertTrue(script.contains("cat /etc/pgbouncer/console-userlist.txt"), "the console users join the userlist: " + script);
        Container exporter = container(pod, "exporter");
        assertTrue(exporter.getEnv().stream().noneMatch(e -> e.getName().equals("PGBOUNCER_DB_PASSWORD")),
                "the exporter never holds the owner's password");
        assertEquals("exporter-connection-string",
                env(exporter, "PGBOUNCER_EXPORTER_CONNECTION_STRING").getValueFrom().getSecretKeyRef().getKey());
    }

    @Test
    void registrationServicesRoleInitContainerLogsInWithTheExistingSecret() {
        Chart.Rendered rendered = Chart.render(Chart.set("database.existingSecret", EXISTING));
        PodSpec pod = rendered.get(Deployment.class, Chart.name("registration-service")).getSpec().getTemplate().getSpec();
        Container init = pod.getInitContainers().stream().filter(c -> c.getName().equals("db-roles")).findFirst()
                .orElseThrow();
        assertEquals(EXISTING, env(init, "PGPASSWORD").getValueFrom().getSecretKeyRef().getName());
        EnvVar password = env(container(pod, "registration-service"), "IDENTITY_DB_PASSWORD");
        assertEquals(EXISTING, password.getValueFrom().getSecretKeyRef().getName());
    }

    @Test
    void theBundledPostgresqlReadsAnExistingSecretToo() {
        Chart.Rendered rendered = Chart.render(Chart.set("database.existingSecret", EXISTING));
        StatefulSet postgres = rendered.get(StatefulSet.class, Chart.name("postgresql"));
        // The owner's password is set by the PostgreSQL pod's roles container (the image's superuser is postgres).
        EnvVar password = env(container(postgres.getSpec().getTemplate().getSpec(), "roles"), "OWNER_PASSWORD");
        assertEquals(EXISTING, password.getValueFrom().getSecretKeyRef().getName());
        assertEquals("password", password.getValueFrom().getSecretKeyRef().getKey());
    }

    @Test
    void withoutAnExistingSecretNothingChanges() {
        Chart.Rendered rendered = Chart.render();
        EnvVar password = env(container(rendered.get(Deployment.class, Chart.name("registration-service")).getSpec()
                .getTemplate().getSpec(), "registration-service"), "IDENTITY_DB_PASSWORD");
        assertEquals(Chart.name("db"), password.getValueFrom().getSecretKeyRef().getName());
        assertEquals("password", password.getValueFrom().getSecretKeyRef().getKey());
        Map<String, String> pgbouncer = rendered.get(Secret.class, Chart.name("pgbouncer")).getData();
        assertTrue(pgbouncer.containsKey("userlist.txt"));
        Container pgb = container(rendered.get(Deployment.class, Chart.name("pgbouncer")).getSpec().getTemplate()
                .getSpec(), "pgbouncer");
        assertTrue(pgb.getCommand() == null || pgb.getCommand().isEmpty(), "the image's entrypoint runs as before");
    }

    private static Container container(PodSpec pod, String name) {
        return pod.getContainers().stream().filter(c -> c.getName().equals(name)).findFirst().orElseThrow(
                () -> new AssertionError("no container " + name));
    }

    private static EnvVar env(Container container, String name) {
        return container.getEnv().stream().filter(e -> e.getName().equals(name)).findFirst().orElseThrow(
                () -> new AssertionError(container.getName() + " has no env " + name));
    }
}
