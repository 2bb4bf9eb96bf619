package io.deviceidentity.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;

/**
 * {@code make size} (scripts/size.py) computes with the chart's formulas and prints values that deploy what it
 * computed: its arithmetic on known figures is the documented one (docs/sizing.md, "The arithmetic"), the values file
 * it writes renders into the HPA, Deployment, PgBouncer ini and EMQX pool it printed, the chart's own sums for them
 * are its sums, and its PgBouncer limit is the smallest the chart accepts.
 */
class SizingAgreesWithChartTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** 2 000 000 devices in 600 s, 90 % known: 333.3 cold and 3000 known checks/s. */
    private static final List<String> STORM = List.of("--devices", "2000000", "--window", "600", "--known", "0.9");

    @Test
    void theStormIsCarriedByMinReplicasCountedAtTheirCpuRequest(@TempDir Path bench) throws Exception {
        // Figures of a bench run: 10 cold and 1000 known allows/s per core.
        write(bench.resolve("capacity/summary.json"), "{ \"steady_state\" : { \"goodput\" : 10.0 } }");
        write(bench.resolve("known-closed-20/summary.json"), "{ \"steady_state\" : { \"goodput\" : 1000.0 } }");

        JsonNode chartDefaults = size(bench, STORM);
        // ceil(333.3 / 10) = 34 bcrypt CPUs at the chart's request of 1 CPU: 34 replicas, all of them before the storm.
        assertEquals(34, chartDefaults.get("bcrypt_cpus").asInt(), chartDefaults::toString);
        assertEquals("1", chartDefaults.get("cpu_request").asText());
        assertEquals("2", chartDefaults.get("cpu_limit").asText());
        assertEquals(34, chartDefaults.get("auth_min_replicas").asInt(), chartDefaults::toString);
        assertEquals(34, chartDefaults.get("auth_replicas").asInt(), "maxReplicas is never below minReplicas");
        // 34 x (10 + 1) + 3 x 10 = 404 clients; per PgBouncer replica ceil(404 / (2 x 80 %)) = 253.
        assertEquals(404, chartDefaults.get("client_connections").asInt());
        assertEquals(2, chartDefaults.get("pgbouncer_replicas").asInt());
        assertEquals(253, chartDefaults.get("pgbouncer_max_client_conn").asInt());
        assertEquals(86, chartDefaults.get("server_connections").asInt());
        assertEquals(100, chartDefaults.get("postgresql_max_connections").asInt());
        // ceil(34 x (2 + 20) x 125 %) = 935 over 3 nodes x pipelining 1: 312 per node.
        assertEquals(3, chartDefaults.get("emqx_nodes").asInt());
        assertEquals(312, chartDefaults.get("emqx_pool_size").asInt());

        List<String> assumptions = new ArrayList<>(STORM);
        assumptions.addAll(List.of("--auth-cpu", "2", "--emqx-nodes", "5", "--pipelining", "2",
                "--pgbouncer-replicas", "3"));
        JsonNode set = size(bench, assumptions);
        // 34 bcrypt CPUs at 2 CPUs a replica: 17; the known share needs 3000 / (1000 x 50 % x 2) = 3.
        assertEquals(17, set.get("auth_min_replicas").asInt(), set::toString);
        assertEquals("2", set.get("cpu_request").asText());
        // 17 x 11 + 30 = 217 clients over 3 PgBouncers: below values.yaml's 200 each, which stays.
        assertEquals(217, set.get("client_connections").asInt());
        assertEquals(200, set.get("pgbouncer_max_client_conn").asInt());
        // 3 x 2 x 20 + 3 x 2 = 126 server connections + 3 reserved.
        assertEquals(126, set.get("server_connections").asInt());
        assertEquals(129, set.get("postgresql_max_connections").asInt());
        // ceil(17 x 22 x 125 %) = 468 over 5 nodes x pipelining 2: 47 per node, 470 in flight.
        assertEquals(47, set.get("emqx_pool_size").asInt());
        assertEquals(470, set.get("emqx_in_flight").asInt());
    }

    @Test
    void theValuesItPrintsRenderTheHpaDeploymentAndPoolsItComputed(@TempDir Path dir) throws Exception {
        Path valuesFile = dir.resolve("sized-values.yaml");
        List<String> args = new ArrayList<>(STORM);
        args.addAll(List.of("--values-out", valuesFile.toString()));
        String printed = run(args);
        String values = Files.readString(valuesFile);
        assertTrue(printed.contains(values), "the printed snippet is the file --values-out writes:\n" + printed);
        JsonNode size = size(Path.of("/nonexistent-bench-output"), STORM);
        JsonNode figures = JSON.readTree(Chart.REPO.resolve("docs/figures.json").toFile());
        assertEquals(figures.at("/cold_allows_per_core/value").asDouble(), size.get("cold_per_core").asDouble(),
                "make size plans with docs/figures.json's cold figure");
        assertEquals(figures.at("/known_allows_per_core/value").asDouble(), size.get("known_per_core").asDouble(),
                "make size plans with docs/figures.json's known figure");
        assertTrue(size.get("auth_min_replicas").asInt() > 6, "a storm this large needs more than the default: " + size);

        Chart.Rendered rendered = Chart.render(Map.of(), valuesFile);
        HorizontalPodAutoscaler hpa = rendered.get(HorizontalPodAutoscaler.class, Chart.name("auth-service"));
        assertEquals(size.get("auth_min_replicas").asInt(), hpa.getSpec().getMinReplicas());
        assertEquals(size.get("auth_replicas").asInt(), hpa.getSpec().getMaxReplicas());
        Container auth = rendered.get(Deployment.class, Chart.name("auth-service")).getSpec().getTemplate().getSpec()
                .getContainers().get(0);
        assertEquals(size.get("cpu_request").asText(), auth.getResources().getRequests().get("cpu").toString());
        assertEquals(size.get("cpu_limit").asText(), auth.getResources().getLimits().get("cpu").toString());
        assertEquals("384Mi", auth.getResources().getRequests().get("memory").toString(), "the rest of resources stays");
        assertEquals(size.get("pgbouncer_replicas").asInt(),
                rendered.get(Deployment.class, Chart.name("pgbouncer")).getSpec().getReplicas());
        assertEquals(size.get("pgbouncer_max_client_conn").asText(), PgBouncerTest.ini(rendered).section("pgbouncer").get("max_client_conn"));
        assertEquals(size.get("emqx_nodes").asInt(),
                rendered.get(StatefulSet.class, Chart.name("emqx")).getSpec().getReplicas());
        List<Map<String, Object>> chain = JSON.readValue(EmqxTest.env(rendered).get("EMQX_AUTHENTICATION"),
                new TypeReference<>() { });
        assertEquals(size.get("emqx_pool_size").asInt(), chain.get(0).get("pool_size"));
        assertEquals(size.get("emqx_pipelining").asInt(), chain.get(0).get("enable_pipelining"));
    }

    @Test
    void theChartsSumsAreThePrintedOnesAndItsPgBouncerLimitIsTheSmallestAccepted() throws Exception {
        // Large enough that the PgBouncer limit comes from the formula, not from values.yaml's floor (200), whatever
        // the documented per-core figures: otherwise "one less is refused" cannot hold.
        JsonNode size = size(Path.of("/nonexistent-bench-output"),
                List.of("--devices", "4000000", "--window", "300", "--known", "0.9"));
        int minReplicas = size.get("auth_min_replicas").asInt();
        int replicas = size.get("auth_replicas").asInt();
        int maxClientConn = size.get("pgbouncer_max_client_conn").asInt();
        int maxConnections = size.get("postgresql_max_connections").asInt();
        assertTrue(maxClientConn > 200, "the fleet no longer needs more than the default max_client_conn: " + size);
        Map<String, Object> printed = Chart.set("authService.autoscaling.minReplicas", minReplicas,
                "authService.autoscaling.maxReplicas", replicas, "pgbouncer.maxClientConn", maxClientConn,
                "postgresql.maxConnections", maxConnections);
        Chart.render(printed);

        Map<String, Object> tooFewClients = new java.util.LinkedHashMap<>(printed);
        tooFewClients.put("pgbouncer.maxClientConn", maxClientConn - 1);
        String clients = Chart.refusal(tooFewClients);
        assertEquals(size.get("client_connections").asInt(), number(clients, "client connections, (\\d+) in all"));

        Map<String, Object> tooFewServers = new java.util.LinkedHashMap<>(printed);
        tooFewServers.put("postgresql.maxConnections", 10);
        assertEquals(size.get("server_connections").asInt(),
                number(Chart.refusal(tooFewServers), "more, (\\d+) in all"));

        String notes = NotesTest.notes(printed);
        assertEquals(size.get("emqx_pool_size").asInt(), number(notes, "x pool_size (\\d+) \\(derived\\)"), notes);
        assertEquals(size.get("emqx_in_flight").asInt(), number(notes, "= (\\d+) in flight"), notes);
    }

    private static int number(String text, String regex) {
        Matcher matcher = Pattern.compile(regex).matcher(text);
        assertTrue(matcher.find(), "/" + regex + "/ not in: " + text);
        return Integer.parseInt(matcher.group(1));
    }

    private static void write(Path file, String text) throws Exception {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }

    /** scripts/size.py --json with the figures of BENCH (a missing directory: docs/figures.json's). */
    private static JsonNode size(Path bench, List<String> args) throws Exception {
        List<String> all = new ArrayList<>(List.of("--json", "--bench", bench.toString()));
        all.addAll(args);
        return JSON.readTree(run(all));
    }

    private static String run(List<String> args) throws Exception {
        List<String> command = new ArrayList<>(List.of("python3", Chart.REPO.resolve("scripts/size.py").toString()));
        command.addAll(args);
        if (!args.contains("--bench")) {
            command.addAll(List.of("--bench", "/nonexistent-bench-output"));
        }
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, process.exitValue(), output);
        return output;
    }
}
