package io.deviceidentity.buildchecks;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The repository speaks of the product, not of how it was made: no tracked file names a work session, an issue
 * number, a lettered run, the branch a change was made on or a section of a design note that is not in the
 * repository. A comment says what is true and why, a commit message says when; a measurement is cited by linking
 * docs/benchmarks.md.
 *
 * <p>Two kinds of file are exempt:
 * <ul>
 * <li>the dated results archive (docs/results/), which records measurements as they were taken;</li>
 * <li>Flyway migrations: Flyway checksums a migration's whole text, comments included (CRC32 over every line,
 * flyway-core's {@code ChecksumCalculator}), and {@code validate} refuses a database whose applied migration's
 * checksum differs, so an applied migration's comment cannot be edited without breaking every existing database.</li>
 * </ul>
 */
class ProcessWordsTest {

    /** The words, case-insensitive; written so that this file does not match them itself. */
    static final Pattern PROCESS_WORDS = Pattern.compile(
            "session [0-9]|issue #?[0-9]|DESIGN \\x{A7}|this[ ]branch|run [A-J]\\b", Pattern.CASE_INSENSITIVE);

    private static final Pattern EXEMPT = Pattern.compile(
            "docs/results/.*|[^/]+(/[^/]+)*/src/main/resources/db/migration/V[^/]*\\.sql");

    @Test
    void noTrackedFileNamesASessionAnIssueARunOrABranch() throws Exception {
        List<String> hits = hits(Repo.ROOT, trackedFiles());
        assertEquals(List.of(), hits, "process words in the product (write the reason, or link docs/benchmarks.md "
                + "for a measurement; history belongs in commit messages):\n" + String.join("\n", hits));
    }

    @Test
    void eachHitIsReportedWithItsFileAndLineAndTheExemptPathsAreSkipped(@TempDir Path root) throws IOException {
        String session = "sess" + "ion 8";
        write(root, "docs/page.md", "# Page\n\nMeasured in " + session + ".\nfine\nas ISSUE #" + "24 said\n");
        write(root, "scripts/x.sh", "# DESIGN \u00a7" + "3 and th" + "is branch\nrun the tests\n# the r" + "un B figures\n");
        write(root, "docs/results/2026-12.md", "## The make bench of " + session + "\n");
        write(root, "identity-core/src/main/resources/db/migration/V4__kicks.sql", "-- is" + "sue 24\n");
        write(root, "identity-core/src/main/resources/db/changes.sql", "-- is" + "sue 24\n");
        assertEquals(List.of(
                "docs/page.md:3: Measured in " + session + ".",
                "docs/page.md:5: as ISSUE #" + "24 said",
                "scripts/x.sh:1: # DESIGN \u00a7" + "3 and th" + "is branch",
                "scripts/x.sh:3: # the r" + "un B figures",
                "identity-core/src/main/resources/db/changes.sql:1: -- is" + "sue 24"),
                hits(root, List.of("docs/page.md", "scripts/x.sh", "docs/results/2026-12.md",
                        "identity-core/src/main/resources/db/migration/V4__kicks.sql",
                        "identity-core/src/main/resources/db/changes.sql")));
    }

    /** Every line of the given files that names a process word, as {@code file:line: text}. */
    static List<String> hits(Path root, List<String> files) {
        List<String> hits = new ArrayList<>();
        for (String file : files) {
            if (EXEMPT.matcher(file).matches() || !Files.isRegularFile(root.resolve(file))) {
                continue;
            }
            List<String> lines = lines(root.resolve(file));
            for (int i = 0; i < lines.size(); i++) {
                if (PROCESS_WORDS.matcher(lines.get(i)).find()) {
                    hits.add(file + ":" + (i + 1) + ": " + lines.get(i).strip());
                }
            }
        }
        return hits;
    }

    private static List<String> trackedFiles() throws Exception {
        Process git = new ProcessBuilder("git", "ls-files", "-z").directory(Repo.ROOT.toFile()).start();
        String out = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!git.waitFor(60, TimeUnit.SECONDS) || git.exitValue() != 0) {
            throw new IllegalStateException("git ls-files failed in " + Repo.ROOT);
        }
        return List.of(out.split("\0")).stream().filter(name -> !name.isEmpty()).toList();
    }

    /** A file's lines; bytes that are not UTF-8 (binary files) are replaced, never matched. */
    private static List<String> lines(Path file) {
        try {
            return new String(Files.readAllBytes(file), StandardCharsets.UTF_8).lines().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void write(Path root, String file, String text) throws IOException {
        Files.createDirectories(root.resolve(file).getParent());
        Files.writeString(root.resolve(file), text);
    }
}
