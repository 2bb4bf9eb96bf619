package io.deviceidentity.buildchecks;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
 * The Prometheus text format is parsed in one place, the load generator's PrometheusText: the scripts read the
 * services' metrics through {@code loadtest metrics} (scripts/bench.sh's calls are checked in LoadtestArgumentsTest),
 * so that a renamed metric is changed once and a misspelt selector fails here.
 */
class MetricsReadOnceTest {

    /** A script reading a metrics page itself: curl or http.client fetching /q/metrics, or awk over metric lines. */
    private static final Pattern OWN_PARSER = Pattern.compile(
            "curl[^\\n]*q/metrics|request\\(\"GET\", \"/q/metrics\"\\)|awk[^\\n]*\\$1 ~ /\\^identity_|\\$1 ~ /\\^identity_"
                    + "|startswith\\(\"identity_|grep -E '\\^identity_");

    @Test
    void noScriptParsesAMetricsPageItself() throws IOException {
        List<String> offenders = new ArrayList<>();
        try (Stream<Path> files = Files.walk(Repo.ROOT.resolve("scripts"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".sh") || f.toString().endsWith(".py")).toList()) {
                Matcher own = OWN_PARSER.matcher(Files.readString(file));
                while (own.find()) {
                    offenders.add(Repo.relative(file) + ": " + own.group());
                }
            }
        }
        assertEquals(List.of(), offenders);
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
            String loadtest = Path.of(System.getProperty("java.home"), "bin", "java") + " -cp "
                    + System.getProperty("java.class.path") + " io.deviceidentity.loadtest.LoadTest";
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
