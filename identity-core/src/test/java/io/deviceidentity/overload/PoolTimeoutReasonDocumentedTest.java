package io.deviceidentity.overload;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;

/**
 * One truth for the 503 reason a pool-acquisition timeout gets (the README, configuration.md and
 * emqx/README.md said {@code overload}, operations.md and api.md {@code backend_unavailable}). The truth is the code:
 * {@link PooledConnections} turns Agroal's acquisition timeout into a {@link UnavailableReason}; every mention of a
 * pool-acquisition timeout in README.md, docs/*.md and emqx/README.md that names a reason must name that one.
 *
 * <p>Which reason a mention names: the nearest reason label before it on its line, else the nearest before it in its
 * paragraph, else the first after it on its line, else the reason in the heading of its section.
 */
class PoolTimeoutReasonDocumentedTest {

    private static final Path ROOT = Path.of(System.getProperty("repo.root", "..")).toAbsolutePath().normalize();
    private static final Pattern MENTION = Pattern.compile(
            "no pooled (database )?connection|acquisition[- ]timeout|acquisitionTimeout|pool[- ]acquisition",
            Pattern.CASE_INSENSITIVE);
    /** A reason as the pages write one: {@code `overload`}, {@code "overload"}, {@code `503 overload`}. */
    private static final Pattern LABEL = Pattern.compile("(?:`|\"|503 )(" + Arrays.stream(UnavailableReason.values())
            .map(reason -> Pattern.quote(reason.label())).reduce((a, b) -> a + "|" + b).orElseThrow() + ")(?=`|\")");

    @Test
    void aPoolAcquisitionTimeoutIsOverloadInTheCodeAndInEveryPageThatNamesItsReason() throws IOException {
        UnavailableReason truth = reasonOfAnAcquisitionTimeout();
        assertEquals(UnavailableReason.OVERLOAD, truth, "PooledConnections changed: update this test's pages too");

        List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("emqx/README.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(file -> file.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        List<String> wrong = new ArrayList<>();
        int named = 0;
        for (Path page : pages) {
            List<String> lines = Files.readAllLines(page);
            for (int i = 0; i < lines.size(); i++) {
                Matcher mention = MENTION.matcher(lines.get(i));
                while (mention.find()) {
                    String reason = reasonNamedFor(lines, i, mention.start());
                    if (reason == null) {
                        continue;
                    }
                    named++;
                    if (!reason.equals(truth.label())) {
                        wrong.add(ROOT.relativize(page) + ":" + (i + 1) + " gives '" + reason + "': " + lines.get(i));
                    }
                }
            }
        }
        assertEquals(List.of(), wrong, "a pool-acquisition timeout is 503 " + truth.label() + " (PooledConnections)");
        assertEquals(true, named >= 4, "the pages name the reason of a pool-acquisition timeout " + named
                + " times; this test no longer finds them (its phrases or the pages changed)");
    }

    /** What the service answers when Agroal's acquisition timeout fires, taken from the code itself. */
    private static UnavailableReason reasonOfAnAcquisitionTimeout() {
        // Agroal's own message (io.agroal.pool.ConnectionPool: "Sorry, acquisition timeout!").
        DataSource timingOut = (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    throw new SQLException("Sorry, acquisition timeout!");
                });
        try {
            PooledConnections.take(timingOut);
        } catch (ServiceUnavailableException refused) {
            return refused.reason();
        } catch (SQLException notClassified) {
            throw new AssertionError("an acquisition timeout is not classified: " + notClassified);
        }
        throw new AssertionError("no failure");
    }

    static String reasonNamedFor(List<String> lines, int line, int column) {
        String text = lines.get(line);
        String before = lastLabel(text.substring(0, column));
        if (before != null) {
            return before;
        }
        for (int i = line - 1; i >= 0 && !lines.get(i).isBlank() && !lines.get(i).startsWith("#"); i--) {
            String earlier = lastLabel(lines.get(i));
            if (earlier != null) {
                return earlier;
            }
        }
        Matcher after = LABEL.matcher(text.substring(column));
        if (after.find()) {
            return after.group(1);
        }
        for (int i = line; i >= 0; i--) {
            if (lines.get(i).startsWith("#")) {
                return lastLabel(lines.get(i));
            }
        }
        return null;
    }

    private static String lastLabel(String text) {
        Matcher label = LABEL.matcher(text);
        String last = null;
        while (label.find()) {
            last = label.group(1);
        }
        return last;
    }

    static {
        if (!Files.isDirectory(ROOT.resolve("docs"))) {
            throw new UncheckedIOException(new IOException("no docs/ under " + ROOT + " (set -Drepo.root)"));
        }
    }
}
