package io.deviceidentity.loadtest.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.deviceidentity.loadtest.LoadTest;

/** {@code loadtest metrics}: the scripts' one way to read a service's Prometheus page, on recorded pages. */
class MetricsCommandTest {

    @TempDir
    Path dir;

    private Path page(String resource) throws IOException {
        Path file = dir.resolve(resource);
        try (InputStream in = MetricsCommandTest.class.getResourceAsStream("/bench/" + resource)) {
            Files.write(file, in.readAllBytes());
        }
        return file;
    }

    private record Result(int exit, String out) {
    }

    private static Result run(String... args) {
        PrintStream was = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            int exit = LoadTest.execute(args);
            return new Result(exit, out.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(was);
        }
    }

    @Test
    void printsEachSelectorsSumOnOneLine() throws IOException {
        Path after = page("storm-after.prom");
        assertEquals(new Result(0, "2991 120 1 0\n"), run("metrics", after.toString(), "identity_authn_outcomes_total",
                "identity_authn_outcomes_total{result=\"allow\",reason=\"verified\"}", "identity_bcrypt_concurrency",
                "absent_total"));
    }

    @Test
    void sinceARecordedPagePrintsTheDifference() throws IOException {
        Path before = page("storm-before.prom");
        Path after = page("storm-after.prom");
        assertEquals(new Result(0, "161 10.8\n"), run("metrics", "--since", before.toString(), after.toString(),
                "identity_authn_outcomes_total",
                "http_server_requests_seconds_sum{status=\"200\",uri=\"/mqtt/authn\"}"));
    }

    @Test
    void theBenchsCredentialReadsAreTheFinderGuardsCallsWhateverTheirResult() throws IOException {
        // The selector exactly as scripts/bench-pods.sh passes it, with the arguments in its order.
        String script = Files.readString(Path.of("..", "scripts", "bench-pods.sh"));
        Matcher selector = Pattern.compile("(?m)^CREDENTIAL_READS='([^']+)'$").matcher(script);
        assertTrue(selector.find(), "bench-pods.sh defines CREDENTIAL_READS");
        Path before = page("storm-before.prom");
        Path after = page("storm-after.prom");

        assertEquals(new Result(0, "1212\n"), run("metrics", "--unreadable-empty", "--since", before.toString(),
                after.toString(), selector.group(1)), "1200 returned + 12 thrown; the verifier writer's calls left out");
    }

    @Test
    void eachListsTheMatchingSeriesAndNonZeroLeavesOutZeros() throws IOException {
        Path before = page("storm-before.prom");
        assertEquals(new Result(0, """
                identity_authn_outcomes_total{reason="ok",result="allow"} 2700
                identity_authn_outcomes_total{reason="overload",result="unavailable"} 130
                """), run("metrics", "--each", "--non-zero", before.toString(), "identity_authn_outcomes_total"));
    }

    @Test
    void byPrintsTheMatchingSeriesSummedPerValueOfTheLabel() throws IOException {
        Path before = page("storm-before.prom");
        Path twoPods = dir.resolve("two-pods.prom");
        Files.writeString(twoPods, Files.readString(before) + "# pod b\n" + Files.readString(page("storm-after.prom")));
        assertEquals(new Result(0, """
                ok 5400
                verified 120
                """), run("metrics", "--by", "reason", twoPods.toString(), "identity_authn_outcomes_total{result=\"allow\"}"));
        assertEquals(new Result(0, "overload 301\n"), run("metrics", "--by", "reason", "--non-zero", twoPods.toString(),
                "identity_authn_outcomes_total{result=~\"unavail.*\"}", "absent_total"));
        assertNotEquals(0, run("metrics", "--by", "reason", "--each", before.toString(), "identity_authn_outcomes_total").exit());
    }

    @Test
    void aRegexSelectorSumsTheSeriesWhoseLabelMatches() throws IOException {
        Path after = page("storm-after.prom");
        assertEquals(new Result(0, "2820 171\n"), run("metrics", after.toString(),
                "identity_authn_outcomes_total{result=~\"allow|deny\"}", "identity_authn_outcomes_total{reason=~\"over.+\"}"));
    }

    @Test
    void saveWritesThePageForALaterSince() throws IOException {
        Path before = page("storm-before.prom");
        Path saved = dir.resolve("saved.prom");
        assertEquals(0, run("metrics", "--save", saved.toString(), before.toString()).exit());
        assertEquals(Files.readString(before), Files.readString(saved));
    }

    @Test
    void anUnreadablePageFailsUnlessItMayCountAsEmpty() {
        String nowhere = "http://127.0.0.1:1/q/metrics";
        assertNotEquals(0, run("metrics", nowhere, "identity_authn_outcomes_total").exit());
        assertEquals(new Result(0, "0\n"), run("metrics", "--unreadable-empty", nowhere, "identity_authn_outcomes_total"));
    }

    @Test
    void aMalformedSelectorIsAUsageError() throws IOException {
        Path before = page("storm-before.prom");
        assertNotEquals(0, run("metrics", before.toString(), "identity authn").exit());
        assertNotEquals(0, run("metrics", before.toString(), "x{result=allow}").exit());
        assertNotEquals(0, run("metrics", before.toString(), "x{result=~\"(\"}").exit());
    }
}
