package io.deviceidentity.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;

/**
 * PostgreSQL and PgBouncer serve a certificate cert-manager renewed without a restart (tls.databaseReload): the
 * chart runs files/tls-reload.sh (proved against the real servers by build-checks TlsReloadScriptTest) on exactly the
 * files each server reads, with the reload each one understands, as a user that may ask for it.
 */
class DatabaseCertificateReloadChartTest {

    private static final Chart.Rendered DEFAULTS = Chart.render();
    private static final String SCRIPT = "/opt/tls-reload/tls-reload.sh";

    private static PodSpec pgbouncer(Chart.Rendered rendered) {
        return rendered.get(Deployment.class, Chart.name("pgbouncer")).getSpec().getTemplate().getSpec();
    }

    private static PodSpec postgresql(Chart.Rendered rendered) {
        return rendered.get(StatefulSet.class, Chart.name("postgresql")).getSpec().getTemplate().getSpec();
    }

    private static Container container(PodSpec pod, String name) {
        return pod.getContainers().stream().filter(c -> c.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no container " + name));
    }

    @Test
    void theScriptShippedIsTheOneTheTestsRunAgainstTheRealServers() {
        ConfigMap map = DEFAULTS.get(ConfigMap.class, Chart.name("tls-reload"));
        assertEquals(Chart.read(Chart.DIR.resolve("files/tls-reload.sh")), map.getData().get("tls-reload.sh"));
    }

    @Test
    void pgbouncersSidecarSendsReloadOnTheConsoleWhenAnyTlsFileItReadsChanges() {
        PodSpec pod = pgbouncer(DEFAULTS);
        Container reload = container(pod, "tls-reload");
        List<String> command = reload.getCommand();
        assertEquals(List.of("/bin/sh", SCRIPT, "60"), command.subList(0, 3));
        // Every TLS file the ini names is watched, and the watcher sees it where PgBouncer does.
        Map<String, String> ini = PgBouncerTest.ini(Chart.render(Chart.set("tls.database.pgbouncerClientSslMode", "verify-ca")))
                .section("pgbouncer");
        assertEquals("psql -X -q 'host=127.0.0.1 port=" + ini.get("listen_port") + " dbname=pgbouncer user="
                + ini.get("admin_users") + " sslmode=require' -c RELOAD", command.get(3));
        Set<String> read = ini.entrySet().stream().filter(e -> e.getKey().endsWith("_file") && e.getKey().contains("tls"))
                .map(Map.Entry::getValue).collect(Collectors.toCollection(TreeSet::new));
        assertEquals(read, new TreeSet<>(command.subList(4, command.size())));
        for (String file : read) {
            assertTrue(mountedAt(reload, file) && mountedAt(container(pod, "pgbouncer"), file), file);
        }
        assertEquals(Chart.name("pgbouncer") + "/admin-password", secretRef(reload, "PGPASSWORD"),
                "the console admin, never the application's role");
        assertTrue(reload.getSecurityContext().getReadOnlyRootFilesystem());
        assertTrue(mountedAt(reload, SCRIPT));
    }

    @Test
    void postgresqlsRolesContainerStaysToCallPgReloadConfOverItsSocket() {
        PodSpec pod = postgresql(DEFAULTS);
        Container roles = container(pod, "roles");
        String script = String.join("\n", roles.getArgs());
        assertTrue(script.contains("exec /bin/sh " + SCRIPT + " 60 \"psql -X -q -v ON_ERROR_STOP=1 -d postgres -U postgres"
                + " -c 'SELECT pg_reload_conf()'\" /etc/postgresql-tls/tls.crt /etc/postgresql-tls/tls.key"), script);
        List<String> serverArgs = container(pod, "postgresql").getArgs();
        assertTrue(serverArgs.contains("ssl_cert_file=/etc/postgresql-tls/tls.crt")
                && serverArgs.contains("ssl_key_file=/etc/postgresql-tls/tls.key"), serverArgs::toString);
        assertTrue(mountedAt(roles, "/etc/postgresql-tls/tls.crt") && mountedAt(roles, SCRIPT));
    }

    @Test
    void offOrWithoutTlsNothingWatchesAndTheRolesContainerOnlyWaits() {
        for (Chart.Rendered off : List.of(Chart.render(Chart.set("tls.databaseReload.enabled", false)),
                Chart.render(Chart.set("tls.enabled", false, "tls.plaintextAllowedBecause", "mesh")))) {
            assertTrue(pgbouncer(off).getContainers().stream().noneMatch(c -> c.getName().equals("tls-reload")));
            String script = String.join("\n", container(postgresql(off), "roles").getArgs());
            assertFalse(script.contains(SCRIPT), script);
            assertTrue(script.contains("while :; do sleep 3600"), script);
            off.assertAbsent(ConfigMap.class, Chart.name("tls-reload"));
        }
    }

    @Test
    void thePeriodIsAValue() {
        Chart.Rendered fast = Chart.render(Chart.set("tls.databaseReload.periodSeconds", 15));
        assertEquals("15", container(pgbouncer(fast), "tls-reload").getCommand().get(2));
        assertTrue(String.join("\n", container(postgresql(fast), "roles").getArgs()).contains(SCRIPT + " 15 "));
    }

    /**
     * The argument lists the chart gives the watcher are taken by the real script: it starts watching (a usage error
     * would exit 2 at once) and runs until stopped. The files do not exist here, which it reports and waits out.
     */
    @Test
    void theRealScriptAcceptsTheArgumentListsTheChartRenders() throws Exception {
        String shipped = Chart.DIR.resolve("files/tls-reload.sh").toString();
        List<String> sidecar = new ArrayList<>(container(pgbouncer(DEFAULTS), "tls-reload").getCommand());
        sidecar.set(sidecar.indexOf(SCRIPT), shipped);
        assertWatches(sidecar);
        String roles = String.join("\n", container(postgresql(DEFAULTS), "roles").getArgs()).lines()
                .map(String::trim).filter(line -> line.startsWith("exec /bin/sh " + SCRIPT)).findFirst().orElseThrow();
        assertWatches(List.of("/bin/sh", "-c", roles.replace(SCRIPT, shipped)));
    }

    private static void assertWatches(List<String> command) throws Exception {
        Path out = Files.createTempFile("tls-reload-", ".log");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        try {
            Instant end = Instant.now().plusSeconds(60);
            while (!Files.readString(out).contains("watching") && process.isAlive()
                    && Instant.now().isBefore(end)) {
                Thread.sleep(50);
            }
            String log = Files.readString(out);
            assertTrue(process.isAlive() && log.contains("watching"), command + ":\n" + log);
        } finally {
            process.destroy();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static boolean mountedAt(Container container, String file) {
        return container.getVolumeMounts().stream().map(VolumeMount::getMountPath)
                .anyMatch(mount -> file.startsWith(mount + "/"));
    }

    private static String secretRef(Container container, String name) {
        var ref = container.getEnv().stream().filter(e -> e.getName().equals(name)).findFirst().orElseThrow()
                .getValueFrom().getSecretKeyRef();
        return ref.getName() + "/" + ref.getKey();
    }
}
