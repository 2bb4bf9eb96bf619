package io.deviceidentity.buildchecks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.sun.net.httpserver.HttpServer;

import io.deviceidentity.loadtest.cli.LoadtestCommandLine;

/**
 * The Prometheus text format is parsed in one place, identity-core's PrometheusText: the scripts (scripts/, k8s/)
 * read the services' metrics through {@code loadtest metrics} (scripts/bench.sh's calls are checked in
 * LoadtestArgumentsTest), the services' tests through PrometheusText itself, so that a renamed metric is changed once
 * and a misspelt selector fails here.
 */
class MetricsReadOnceTest {

    /**
     * A script reading a metrics page itself: curl or http.client fetching /q/metrics, or awk over metric lines (a
     * pattern on the series' name, or the label set cut off the series to compare its name).
     */
    static final Pattern OWN_PARSER = Pattern.compile(
            "curl[^\\n]*q/metrics|request\\(\"GET\", \"/q/metrics\"\\)|awk[^\\n]*\\$1 ~ /\\^identity_|\\$1 ~ /\\^identity_"
                    + "|startswith\\(\"identity_|grep -E '\\^identity_|sub\\(/\\\\\\{\\.\\*/");

    /**
     * A test reading a sample line itself: its value taken as the last field, a line recognised by a literal
     * name followed by an opening brace, or a regular expression capturing the value after the label set.
     */
    static final Pattern OWN_SAMPLE_PARSER = Pattern.compile(
            "lastIndexOf\\(' '\\)|startsWith\\(\"[a-zA-Z_:][a-zA-Z0-9_:]*\\{\"|\\} \\(\\\\\\\\S\\+\\)");

    /** The places that read the services' metrics: the scripts, and the services' tests and their shared support. */
    private static final List<String> SCRIPTS = List.of("scripts", "k8s");
    private static final List<String> TESTS = List.of("auth-service/src/test", "registration-service/src/test",
            "test-support/src");

    static List<String> offenders(Path root, List<String> dirs, Pattern own, String... endings) throws IOException {
        List<String> offenders = new ArrayList<>();
        for (String dir : dirs) {
            try (Stream<Path> files = Files.walk(root.resolve(dir))) {
                for (Path file : files.filter(f -> Arrays.stream(endings).anyMatch(f.toString()::endsWith)).toList()) {
                    Matcher found = own.matcher(Files.readString(file));
                    while (found.find()) {
                        offenders.add(root.relativize(file) + ": " + found.group());
                    }
                }
            }
        }
        return offenders;
    }

    @Test
    void noScriptParsesAMetricsPageItself() throws IOException {
        assertEquals(List.of(), offenders(Repo.ROOT, SCRIPTS, OWN_PARSER, ".sh", ".py"));
    }

    @Test
    void noServiceTestParsesASampleLineItself() throws IOException {
        assertEquals(List.of(), offenders(Repo.ROOT, TESTS, OWN_SAMPLE_PARSER, ".java"));
    }

    /** The patterns catch what the scripts and tests used to do by hand. */
    @Test
    void theOwnParserPatternsCatchHandWrittenParsing() {
        for (String script : List.of(
                "awk '/^#/ { next } { metric = $1; sub(/\\{.*/, \"\", metric) } metric == \"identity_bcrypt_concurrency\" { c += $NF }'",
                "metrics=$(curl -fsS \"http://127.0.0.1:$port/q/metrics\")")) {
            assertTrue(OWN_PARSER.matcher(script).find(), script);
        }
        for (String test : List.of(
                "total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));",
                "line.startsWith(\"identity_registration_outcomes_total{\") && line.contains(\"operation=\\\"get\\\"\")",
                "\"[^}]*\\\\} (\\\\S+)$\", Pattern.MULTILINE)")) {
            assertTrue(OWN_SAMPLE_PARSER.matcher(test).find(), test);
        }
        assertFalse(OWN_SAMPLE_PARSER.matcher("PrometheusText.sum(ManagementInterface.metrics(), \"x_total{a=\\\"b\\\"}\")").find());
    }

    /** Every `loadtest metrics` call of scripts/chaos.sh, its words as bash makes them (shell values are stand-ins). */
    static List<List<String>> chaosMetricsCalls(Path dir) throws Exception {
        String text = Repo.read("scripts/chaos.sh").replace("\\\n", " ");
        Matcher call = Pattern.compile("(?m)^[^#\\n]*?\\bloadtest (metrics[^\\n]*?)(?: 2>| >| \\||\\n)").matcher(text);
        List<List<String>> calls = new ArrayList<>();
        int n = 0;
        while (call.find()) {
            Path out = dir.resolve("call-" + n++);
            String script = "AUTH_PORT=8091 CHAOS_OUT=" + dir + " LOG_DIR=" + dir + "\n"
                    + "loadtest() { printf '%s\\0' \"$@\" >" + out + "; }\n" + "loadtest " + call.group(1) + "\n";
            Process bash = new ProcessBuilder("bash", "-c", script).redirectErrorStream(true).start();
            String output = new String(bash.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(bash.waitFor(30, TimeUnit.SECONDS));
            assertEquals(0, bash.exitValue(), output);
            String words = Files.readString(out);
            calls.add(Arrays.asList(words.substring(0, words.length() - 1).split("\0", -1)));
        }
        return calls;
    }

    @Test
    void everyMetricsCallOfChaosShIsAcceptedByTheLoadGenerator(@TempDir Path dir) throws Exception {
        List<List<String>> calls = chaosMetricsCalls(dir);
        assertEquals(3, calls.size(), calls.toString());
        for (List<String> args : calls) {
            assertEquals("metrics", LoadtestCommandLine.check(args), args.toString());
        }
        assertTrue(calls.stream().anyMatch(c -> c.contains("identity_database_refused_total{share=\"known\"}")), calls.toString());
    }

    @Test
    void adversaryReadsBcryptChecksThroughTheLoadGenerator() throws Exception {
        byte[] page = """
                # TYPE identity_bcrypt_duration_seconds summary
                identity_bcrypt_duration_seconds_count{impl="jbcrypt",outcome="match"} 120.0
                identity_bcrypt_duration_seconds_count{impl="jbcrypt",outcome="mismatch"} 30.0
                identity_bcrypt_duration_seconds_sum{impl="jbcrypt",outcome="match"} 9.6
                """.getBytes(StandardCharsets.UTF_8);
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/q/metrics", exchange -> {
            exchange.sendResponseHeaders(200, page.length);
            exchange.getResponseBody().write(page);
            exchange.close();
        });
        server.start();
        try {
            // adversary.py adds the management offset (1000) to the port it is given
            int port = server.getAddress().getPort() - 1000;
            String loadtest = Repo.loadtestCommand();
            Process python = new ProcessBuilder("python3", "-c",
                    "import sys; sys.path.insert(0, sys.argv[1]); import adversary; "
                            + "print(adversary.hashes(int(sys.argv[2]), sys.argv[3]), adversary.hashes(1, sys.argv[3]))",
                    Repo.ROOT.resolve("scripts/chaos").toString(), Integer.toString(port), loadtest)
                    .redirectErrorStream(true).start();
            String output = new String(python.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(python.waitFor(120, TimeUnit.SECONDS), output);
            assertEquals("150.0 None", output.strip(), "summed over label sets; None when the service is not there");
        } finally {
            server.stop(0);
        }
    }
}
