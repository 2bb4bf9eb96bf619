package io.deviceidentity.buildchecks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

import io.deviceidentity.loadtest.cli.LoadtestCommandLine;

/**
 * Every argument list that something the cluster or a script runs passes to the load generator is parsed by the
 * load generator's own parser, so that a wrong flag or value fails `make test` instead of a Job in a cluster
 * (`--progress=off` once made `make load` exit 2 with a usage error). Covered: every container of k8s/jobs/ that
 * runs the loadtest image (its args, as the YAML has them; the image's ENTRYPOINT is `java -jar loadtest.jar`),
 * every call scripts/bench.sh makes (recorded by running the script with stand-ins for taskset, curl, jcmd and jfr, and a java
 * that records each call and runs the real program for the figures the script reads back: loadtest bench and
 * metrics), and the workflows, which must not call the jar themselves.
 */
class LoadtestArgumentsTest {

    static final String IMAGE = "device-identity/loadtest";

    record Invocation(String where, List<String> args) {
        @Override
        public String toString() {
            return where + ": " + args;
        }
    }

    /** The args of every Job container running the loadtest image. */
    static List<Invocation> jobInvocations() throws IOException {
        List<Invocation> invocations = new ArrayList<>();
        try (Stream<Path> files = Files.list(Repo.ROOT.resolve("k8s/jobs"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
                JsonNode pod = Repo.yaml(file).path("spec").path("template").path("spec");
                for (String kind : List.of("initContainers", "containers")) {
                    for (JsonNode container : pod.path(kind)) {
                        if (!container.path("image").asText().startsWith(IMAGE + ":")) {
                            continue;
                        }
                        String where = Repo.relative(file) + " " + container.path("name").asText();
                        assertFalse(container.has("command"), where + " overrides the image's entrypoint");
                        List<String> args = new ArrayList<>();
                        container.path("args").forEach(arg -> args.add(arg.asText()));
                        invocations.add(new Invocation(where, args));
                    }
                }
            }
        }
        return invocations;
    }

    @TestFactory
    Stream<DynamicTest> everyJobsLoadtestArgumentListIsAcceptedByTheLoadGenerator() throws IOException {
        List<Invocation> invocations = jobInvocations();
        assertTrue(invocations.stream().anyMatch(i -> i.where().startsWith("k8s/jobs/loadtest-job.yaml")), invocations.toString());
        return invocations.stream().map(i -> dynamicTest(i.where(), () -> LoadtestCommandLine.check(i.args())));
    }

    /**
     * The kind release serves auth-service over HTTPS only (the chart's tls.enabled) and requires EMQX's client
     * certificate (emqx.clientCertificate): the Job calls it at https://, checked against a CA (--ca-file) and
     * presenting EMQX's certificate and key (--client-cert, --client-key), all from Secrets the pod mounts. The parser
     * above accepts these only with an https URL, and the certificate only with its key; that the files are readable
     * the program checks when it runs (they exist in the pod only).
     */
    @Test
    void theLoadTestJobCallsAuthServiceOverHttpsWithMountedCaAndClientCertificate() throws IOException {
        List<String> job = jobInvocations().stream().filter(i -> i.where().contains("loadtest-job.yaml"))
                .findFirst().orElseThrow().args();
        assertTrue(job.stream().anyMatch(a -> a.startsWith("--url=https://")), job.toString());
        JsonNode pod = Repo.yaml(Repo.ROOT.resolve("k8s/jobs/loadtest-job.yaml")).path("spec").path("template").path("spec");
        JsonNode container = null;
        for (JsonNode c : pod.path("initContainers")) {
            if (c.path("name").asText().equals("loadtest")) {
                container = c;
            }
        }
        assertTrue(container != null, "no loadtest init container");
        assertSecretFile(pod, container, value(job, "--ca-file"), "device-identity-auth-service-tls", "ca.crt");
        assertSecretFile(pod, container, value(job, "--client-cert"), "device-identity-emqx-client-tls", "tls.crt");
        assertSecretFile(pod, container, value(job, "--client-key"), "device-identity-emqx-client-tls", "tls.key");
    }

    private static String value(List<String> args, String option) {
        return args.stream().filter(a -> a.startsWith(option + "=")).map(a -> a.substring(option.length() + 1))
                .findFirst().orElseThrow(() -> new AssertionError("no " + option + " in " + args));
    }

    /** FILE is key KEY of SECRET, on a volume the container mounts. */
    private static void assertSecretFile(JsonNode pod, JsonNode container, String file, String secret, String key) {
        String volume = null;
        String path = null;
        for (JsonNode mount : container.path("volumeMounts")) {
            String dir = mount.path("mountPath").asText() + "/";
            if (file.startsWith(dir)) {
                volume = mount.path("name").asText();
                path = file.substring(dir.length());
            }
        }
        assertTrue(volume != null, file + " is not on a volume of the loadtest container");
        for (JsonNode v : pod.path("volumes")) {
            if (v.path("name").asText().equals(volume)) {
                assertEquals(secret, v.path("secret").path("secretName").asText(), v.toString());
                for (JsonNode item : v.path("secret").path("items")) {
                    if (item.path("path").asText().equals(path)) {
                        assertEquals(key, item.path("key").asText(), file + ": " + v);
                        return;
                    }
                }
                throw new AssertionError(file + ": volume " + volume + " has no item at " + path + ": " + v);
            }
        }
        throw new AssertionError("no volume " + volume);
    }

    @Test
    void everyCallBenchShMakesIsAcceptedByTheLoadGenerator(@TempDir Path dir) throws Exception {
        List<Invocation> all = benchShCalls(dir);
        List<Invocation> calls = all.stream().filter(c -> !c.where().equals(FLOOR_SERVER)).toList();
        // The answer floor's server, once per pod size: its class, then the list bench-pods.sh's floor_args prints
        // (AnswerFloorServerTest runs that list through the server's own parser): two event loops at 0.25 and 1 vCPU,
        // the pods' certificate.
        List<Invocation> floors = all.stream().filter(c -> c.where().equals(FLOOR_SERVER)).toList();
        assertEquals(2, floors.size(), floors.toString());
        for (Invocation floor : floors) {
            List<String> args = floor.args();
            assertEquals("io.deviceidentity.auth.authn.AnswerFloorServer", args.get(0), floor.toString());
            assertEquals(List.of("--port", "--event-loops", "2", "--cert", "--key"),
                    List.of(args.get(1), args.get(3), args.get(4), args.get(5), args.get(7)), floor.toString());
            assertTrue(args.get(6).endsWith("/tls/bench-auth-service.crt"), floor.toString());
        }
        // ... and driven as the pods are: over HTTPS, its name and chain checked against the stack's CA.
        List<Invocation> floorRuns = calls.stream().filter(c -> c.args().get(0).equals("run") && c.args().stream()
                .anyMatch(a -> a.startsWith("floor-"))).toList();
        assertEquals(12, floorRuns.size(), floorRuns.toString());
        for (Invocation run : floorRuns) {
            assertTrue(run.args().contains("--ca-file")
                    && run.args().get(run.args().indexOf("--url") + 1).startsWith("https://localhost:"), run.toString());
        }
        Set<String> commands = new TreeSet<>();
        for (Invocation call : calls) {
            try {
                commands.add(LoadtestCommandLine.check(call.args()));
            } catch (RuntimeException e) {
                throw new AssertionError("scripts/bench.sh passes the load generator an argument list it refuses: "
                        + call.args() + ": " + e.getMessage(), e);
            }
        }
        // the figures bench.sh reads back: every one it computes is computed by the load generator, none in the shell
        Set<String> figures = Set.of("bench point", "bench devices", "bench mixed", "bench known-rates", "bench pod",
                "bench capacity", "bench sum", "bench tls-ratio", "bench cpu-note", "bench mean-time", "bench pod-table", "bench cold-replica", "bench windows",
                "bench refusal-cost", "bench jfr-top", "metrics");
        Set<String> expected = new TreeSet<>(Set.of("compare", "run", "seed"));
        expected.addAll(figures);
        assertTrue(commands.containsAll(expected), "not called: " + difference(expected, commands) + " in " + calls);
        // quota and throttling need a writable cgroup, which this machine may not give
        expected.addAll(Set.of("bench quota", "bench throttling"));
        assertTrue(expected.containsAll(commands), "unexpected: " + difference(commands, expected));
        // the pod-shaped points: replicas behind one Service, a replica joining cold, both ways EMQX's connections go
        assertTrue(calls.stream().anyMatch(c -> c.args().stream().filter("--url"::equals).count() >= 2), calls.toString());
        // the TLS points: an https URL checked against the stack's CA
        assertTrue(calls.stream().anyMatch(c -> c.args().contains("--ca-file")
                && c.args().stream().anyMatch(a -> a.startsWith("https://"))), calls.toString());
        // the pod-shaped points speak HTTPS as the chart's EMQX does: the server name checked, against the stack's CA
        List<Invocation> podRuns = calls.stream().filter(c -> c.args().get(0).equals("run") && c.args().stream()
                .anyMatch(a -> a.startsWith("pod-") || a.startsWith("incident-"))).toList();
        assertTrue(podRuns.size() >= 8, podRuns.toString());
        for (Invocation run : podRuns) {
            assertTrue(run.args().contains("--ca-file") && run.args().stream().filter(a -> a.startsWith("http"))
                    .allMatch(a -> a.startsWith("https://localhost:")), "not HTTPS with a CA: " + run);
        }
        for (String onJoin : List.of("reopen", "keep")) {
            assertTrue(calls.stream().anyMatch(c -> c.args().contains("--join") && c.args().contains(onJoin)), onJoin);
        }
        // BENCH_SEED decides how EMQX's connections spread over the replicas: every multi-replica run is given it
        assertTrue(calls.stream().filter(c -> c.args().stream().filter("--url"::equals).count() >= 2)
                .allMatch(c -> c.args().contains("--seed")), calls.toString());
        // capacity seed + warm-up + capacity run, seed + run per protected point, restart warm-up + seed + run, compare
        assertTrue(calls.size() >= 20, calls.size() + " calls: " + calls);
    }

    private static Set<String> difference(Set<String> a, Set<String> b) {
        Set<String> rest = new TreeSet<>(a);
        rest.removeAll(b);
        return rest;
    }

    @Test
    void noWorkflowCallsTheLoadGeneratorDirectly() {
        // If one ever does, its argument list must be added to the checks above.
        for (Path file : Repo.workflowFiles()) {
            for (String run : Repo.runScripts(Repo.yaml(file))) {
                assertFalse(run.contains("loadtest.jar") || run.matches("(?s).*docker run[^\\n]*" + IMAGE + ".*"),
                        Repo.relative(file) + " runs the load generator itself: " + run);
            }
        }
    }

    /** The checks must be able to fail: deliberately wrong lists, and the Job's own list made wrong, are refused. */
    @Test
    void wrongArgumentListsAreRefused() throws IOException {
        List<String> job = jobInvocations().stream().filter(i -> i.where().contains("loadtest-job.yaml"))
                .findFirst().orElseThrow().args();
        LoadtestCommandLine.check(job);

        List<List<String>> wrong = List.of(
                // the defect this test was written for: not one of auto, tty, lines, none
                replace(job, "--progress=", "--progress=off"),
                with(job, "--no-such-flag"),
                replace(job, "--pool-size=", "--pool-size=twelve"),
                replace(job, "--duration=", "--duration=2 minutes"),
                // accepted by picocli as a string, refused by the command's own parsing
                replace(job, "--retry=", "--retry=sometimes"),
                with(job, "--step-at=10s"),
                with(job, "--on-join=sometimes"),
                // a joining replica answers on another path than the Service's
                with(job, "--join=http://127.0.0.1:8168/other"),
                with(job, "--readiness-period=0s"),
                // a CA to check a plain http:// URL against, and a client certificate for it: mistakes, not no-ops
                replace(job, "--url=", "--url=http://device-identity-auth-service:8081/mqtt/authn"),
                without(replace(job, "--url=", "--url=http://device-identity-auth-service:8081/mqtt/authn"), "--ca-file="),
                // a client certificate without its key
                without(job, "--client-key="),
                List.of("seed", "--devices=10"),
                List.of("--url=http://127.0.0.1:8081/mqtt/authn"),
                List.of("compare", "--out=/tmp"));
        for (List<String> args : wrong) {
            assertThrows(RuntimeException.class, () -> LoadtestCommandLine.check(args), "accepted: " + args);
        }
        assertTrue(LoadtestCommandLine.isParameterException(
                assertThrows(RuntimeException.class, () -> LoadtestCommandLine.check(replace(job, "--progress=", "--progress=off")))));
    }

    private static List<String> replace(List<String> args, String prefix, String replacement) {
        assertTrue(args.stream().anyMatch(a -> a.startsWith(prefix)), prefix + " not in " + args);
        return args.stream().map(a -> a.startsWith(prefix) ? replacement : a).toList();
    }

    private static List<String> without(List<String> args, String prefix) {
        assertTrue(args.stream().anyMatch(a -> a.startsWith(prefix)), prefix + " not in " + args);
        return args.stream().filter(a -> !a.startsWith(prefix)).toList();
    }

    private static List<String> with(List<String> args, String extra) {
        List<String> copy = new ArrayList<>(args);
        copy.add(extra);
        return copy;
    }

    /**
     * Runs scripts/bench.sh with stand-ins on PATH: taskset runs its command unpinned (and skips scripts/stack.sh,
     * so no database starts), curl answers every readiness check, pgbench prints a result, java records the load
     * generator's arguments (and writes the summary.json the script reads back; for bench and metrics it runs the real
     * program, whose figures the script reads back: nothing listens for metrics, so they read 0) or idles as
     * auth-service. Returns the recorded calls.
     */
    static List<Invocation> benchShCalls(Path dir) throws Exception {
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Path records = Files.createDirectories(dir.resolve("calls"));
        Path authJar = Files.writeString(dir.resolve("auth-service.jar"), "");
        Path loadtestJar = Files.writeString(dir.resolve("loadtest.jar"), "");
        Path refusalJar = Files.writeString(dir.resolve("refusal-bench.jar"), "");
        Path floorRecords = Files.createDirectories(dir.resolve("floor-calls"));
        script(bin.resolve("taskset"), """
                [[ "$1" == -c ]] && shift 2
                case "$1" in */scripts/stack.sh) exit 0 ;; esac
                exec "$@"
                """);
        script(bin.resolve("curl"), "exit 0\n");
        // BENCH_JFR=1: jcmd dumps a recording (here an empty file), jfr prints its execution samples (here one).
        script(bin.resolve("jcmd"), """
                for a in "$@"; do [[ "$a" == filename=* ]] && : >"${a#filename=}"; done
                exit 0
                """);
        script(bin.resolve("jfr"), """
                echo '{"recording": {"events": [{"type": "jdk.ExecutionSample", "values": {"startTime": "2030-01-01T00:00:00Z",'
                echo ' "sampledThread": {"javaName": "vert.x-eventloop-thread-0"}, "stackTrace": {"frames": [{"method":'
                echo ' {"type": {"name": "io/vertx/core/Stand$In"}, "name": "handle"}}]}}}]}}'
                """);
        script(bin.resolve("mvn"), "echo 'mvn must not run (SKIP_BUILD=1)' >&2; exit 1\n");
        // pgbench (the fast path's comparison) prints what bench.sh reads back; nothing listens for it here.
        script(bin.resolve("pgbench"), """
                echo 'number of transactions actually processed: 100'
                echo 'latency average = 1.000 ms'
                echo 'tps = 10.0 (without initial connection time)'
                """);
        script(bin.resolve("java"), """
                jar=
                for ((i = 1; i < $#; i++)); do [[ "${!i}" == -jar ]] && { j=$((i + 1)); jar=${!j}; }; done
                # The answer floor's server (java ... -cp refusal-bench.jar CLASS ARGS): its class and arguments are
                # recorded apart, and it idles like auth-service.
                for ((i = 1; i < $#; i++)); do
                  if [[ "${!i}" == -cp ]]; then
                    j=$((i + 1))
                    [[ "${!j}" == "$FAKE_REFUSAL_JAR" ]] || { echo "unexpected java $*" >&2; exit 1; }
                    printf '%s\\0' "${@:j+1}" >"$(mktemp "$FLOOR_CALLS/floor.XXXXXX")"
                    exec sleep 1200
                  fi
                done
                case "$jar" in
                  "$FAKE_AUTH_JAR") exec sleep 1200 ;;
                  "$FAKE_LOADTEST_JAR") ;;
                  *) echo "unexpected java $*" >&2; exit 1 ;;
                esac
                args=() seen=
                for a in "$@"; do [[ -n "$seen" ]] && args+=("$a"); [[ "$a" == "$jar" ]] && seen=1; done
                printf '%s\\0' "${args[@]}" >"$(mktemp "$CALLS/call.XXXXXX")"
                case "${args[0]}" in
                  bench | metrics) exec "$REAL_JAVA" -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp "$LOADTEST_CLASSPATH" io.deviceidentity.loadtest.LoadTest "${args[@]}" ;;
                esac
                if [[ "${args[0]}" == run ]]; then
                  out=
                  for ((i = 0; i < ${#args[@]}; i++)); do [[ "${args[i]}" == --out ]] && out=${args[i + 1]}; done
                  mkdir -p "$out" && echo '{ "steady_state" : { "goodput" : 12.5 } }' >"$out/summary.json"
                fi
                """);
        ProcessBuilder builder = new ProcessBuilder("bash", Repo.ROOT.resolve("scripts/bench.sh").toString())
                .directory(Repo.ROOT.toFile()).redirectErrorStream(true);
        Map<String, String> env = builder.environment();
        env.put("PATH", bin + ":" + env.get("PATH"));
        env.put("SKIP_BUILD", "1");
        env.put("PGBENCH", bin.resolve("pgbench").toString());
        env.put("AUTH_JAR", authJar.toString());
        env.put("LOADTEST_JAR", loadtestJar.toString());
        env.put("FAKE_AUTH_JAR", authJar.toString());
        env.put("FAKE_LOADTEST_JAR", loadtestJar.toString());
        env.put("REFUSAL_JMH_JAR", refusalJar.toString());
        env.put("FAKE_REFUSAL_JAR", refusalJar.toString());
        env.put("FLOOR_CALLS", floorRecords.toString());
        env.put("CALLS", records.toString());
        env.put("REAL_JAVA", Path.of(System.getProperty("java.home"), "bin", "java").toString());
        env.put("LOADTEST_CLASSPATH", System.getProperty("java.class.path"));
        env.put("STACK_DIR", dir.resolve("stack").toString());
        env.put("BENCH_OUT", dir.resolve("out").toString());
        env.put("BENCH_SETTLE", "0");
        env.put("BENCH_COLD_AT", "0");
        // Not 8091: a real `make bench` may be running on this machine. Nothing listens here (the service is a stand-in).
        env.put("AUTH_PORT", String.valueOf(freePortBelow(60000)));
        env.put("BENCH_JFR", "1");
        env.remove("BENCH_POD_TLS");
        env.remove("BENCH_ONLY");
        env.remove("BENCH_JMH");
        Process bench = builder.start();
        String output = new String(bench.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        // ~3 minutes on a 2-core machine (every stand-in is a process start, and about a hundred of them start the real
        // program's JVM for a figure); 7 with a load average of 17
        assertTrue(bench.waitFor(1200, TimeUnit.SECONDS), output);
        assertEquals(0, bench.exitValue(), "scripts/bench.sh with stand-ins failed:\n" + output);

        List<Invocation> calls = recorded(records, "scripts/bench.sh");
        calls.addAll(recorded(floorRecords, FLOOR_SERVER));
        return calls;
    }

    /** Where the calls that started the answer floor's server are recorded (not the load generator's). */
    static final String FLOOR_SERVER = "scripts/bench.sh, the answer floor's server";

    private static List<Invocation> recorded(Path records, String where) throws IOException {
        List<Invocation> calls = new ArrayList<>();
        try (Stream<Path> files = Files.list(records)) {
            for (Path file : files.sorted().toList()) {
                String text = Files.readString(file);
                calls.add(new Invocation(where, Arrays.asList(text.substring(0, text.length() - 1).split("\0", -1))));
            }
        }
        return calls;
    }

    /** A free loopback port below {@code limit}, so that bench.sh's replica and management ports (+1..+3, +1000) exist. */
    private static int freePortBelow(int limit) throws IOException {
        for (int attempt = 0; attempt < 100; attempt++) {
            try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
                if (socket.getLocalPort() < limit) {
                    return socket.getLocalPort();
                }
            }
        }
        return 18091;
    }

    private static void script(Path file, String body) throws IOException {
        Files.writeString(file, "#!/usr/bin/env bash\n" + body);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
}
