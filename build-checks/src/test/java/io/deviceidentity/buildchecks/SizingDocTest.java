package io.deviceidentity.buildchecks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * docs/sizing.md's numbers do not drift from `make size` (issue 25, point 11): its example block is exactly what
 * scripts/size.py prints with the documented figures, and `make size` passes its arguments to the real script.
 */
class SizingDocTest {

    @Test
    void theExampleIsWhatTheScriptPrintsWithTheDocumentedFigures() throws Exception {
        String page = Repo.read("docs/sizing.md");
        int section = page.indexOf("## An example");
        int begin = page.indexOf("```\n", section) + 4;
        int end = page.indexOf("```", begin);
        assertTrue(section >= 0 && begin > section && end > begin, "docs/sizing.md has no example block");
        String printed = run("python3", "scripts/size.py", "--devices", "1000000", "--window", "900",
                "--bench", "/nonexistent-bench-output");
        assertEquals(printed, page.substring(begin, end), "docs/sizing.md's example and `make size` disagree");
        assertTrue(page.contains("9.3 allows/s per\ncore") && page.contains("2 782 allows/s per\ncore"),
                "the page's headline figures are the script's documented ones");
    }

    @Test
    void makeSizePassesItsVariablesToTheScript() throws Exception {
        String printed = run("make", "-s", "size", "DEVICES=5000", "WINDOW=60", "KNOWN=0.5");
        assertTrue(printed.startsWith("5000 devices in 60 s, 50 % known"), printed);
        assertTrue(printed.contains("authService.autoscaling.maxReplicas="), printed);
    }

    private static String run(String... command) throws Exception {
        List<String> args = new ArrayList<>(List.of(command));
        Process process = new ProcessBuilder(args).directory(Repo.ROOT.toFile()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), String.join(" ", command) + " did not finish");
        assertEquals(0, process.exitValue(), output);
        return output;
    }
}
