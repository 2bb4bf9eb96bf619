package io.deviceidentity.testsupport.config;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.deviceidentity.testsupport.Markdown;

/**
 * docs/configuration.md against the code. The page has one Markdown table per section ({@code ## <section>}), with
 * the columns key | env | default | meaning; key and env are code spans, the default is a code span or starts with
 * "none" (no default). {@link #problems} names every difference: a key the code has and the page does not, a wrong
 * default or env name, a row for a key the code no longer has, a key listed twice.
 */
public final class ConfigurationDoc {

    /** One row of a table: where it is, and its first three cells as written. */
    public record Row(String section, int line, String key, String env, String defaultCell) {
    }

    private ConfigurationDoc() {
    }

    /**
     * What a service's test calls: the rows of {@code sections} in {@code doc} against the keys of the mappings
     * found beside {@code anchors} and of {@code applicationProperties}.
     */
    public static List<String> problems(Path doc, List<String> sections, Path applicationProperties,
            Class<?>... anchors) {
        Map<String, ConfigKey> keys = ServiceConfiguration.keys(read(applicationProperties),
                ServiceConfiguration.mappingsBeside(anchors));
        return problems(keys, rows(read(doc), sections), doc.getFileName() + " (sections " + sections + ")");
    }

    public static List<String> problems(Map<String, ConfigKey> keys, List<Row> rows, String where) {
        List<String> problems = new ArrayList<>();
        Map<String, Row> documented = new HashMap<>();
        for (Row row : rows) {
            Row earlier = documented.putIfAbsent(row.key(), row);
            if (earlier != null) {
                problems.add("`" + row.key() + "` is listed twice: line " + earlier.line() + " and line " + row.line());
                continue;
            }
            ConfigKey key = keys.get(row.key());
            if (key == null) {
                problems.add("line " + row.line() + " (" + row.section() + "): `" + row.key()
                        + "` is no longer a configuration key of this service: remove the row");
                continue;
            }
            if (!key.env().equals(row.env())) {
                problems.add("line " + row.line() + ": `" + row.key() + "` is set by env `" + key.env()
                        + "`, the page says `" + row.env() + "`");
            }
            Optional<Optional<String>> written = documentedDefault(row.defaultCell());
            if (written.isEmpty()) {
                problems.add("line " + row.line() + ": the default of `" + row.key()
                        + "` must be one code span or start with \"none\", not: " + row.defaultCell());
            } else if (!written.get().equals(key.defaultValue())) {
                problems.add("line " + row.line() + ": the default of `" + row.key() + "` is "
                        + key.defaultValue().map(value -> "`" + value + "`").orElse("none")
                        + ", the page says " + row.defaultCell());
            }
        }
        keys.values().stream().filter(ConfigKey::mustDocument).filter(key -> !documented.containsKey(key.key()))
                .forEach(key -> problems.add("`" + key.key() + "` (env `" + key.env() + "`, default "
                        + key.defaultValue().map(value -> "`" + value + "`").orElse("none")
                        + ") is not documented in " + where));
        return problems;
    }

    /** The default a cell states: a code span's content, empty for "none…"; empty outside when it is neither. */
    static Optional<Optional<String>> documentedDefault(String cell) {
        if (cell.startsWith("none")) {
            return Optional.of(Optional.empty());
        }
        return Markdown.codeSpan(cell).map(Optional::of);
    }

    /** The table rows under each of {@code sections} ({@code ## <section>} up to the next heading of level 1 or 2). */
    public static List<Row> rows(String markdown, List<String> sections) {
        List<Row> rows = new ArrayList<>();
        for (String section : sections) {
            for (Markdown.Line line : Markdown.tableRows(Markdown.section(markdown, "## " + section))) {
                List<String> cells = Markdown.cells(line.text());
                if (cells.get(0).equals("key")) {
                    continue;
                }
                String where = "line " + line.number() + " (" + section + ")";
                if (cells.size() < 4) {
                    throw new IllegalArgumentException(where + ": expected key | env | default | meaning: " + line.text());
                }
                rows.add(new Row(section, line.number(), required(Markdown.codeSpan(cells.get(0)), where + ", key", cells.get(0)),
                        required(Markdown.codeSpan(cells.get(1)), where + ", env", cells.get(1)), cells.get(2)));
            }
        }
        return rows;
    }

    private static String required(Optional<String> value, String where, String cell) {
        return value.orElseThrow(() -> new IllegalArgumentException(where + " must be one code span: " + cell));
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
