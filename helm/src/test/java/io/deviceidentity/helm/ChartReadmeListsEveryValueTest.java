package io.deviceidentity.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

/**
 * The chart's README lists every value of values.yaml, with its default and the comment values.yaml gives it, in the
 * section "## Values": the table is generated from values.yaml here and must be the README's, so it cannot drift.
 * On a difference the expected section is written to target/README-values.md, to paste over the old one.
 */
class ChartReadmeListsEveryValueTest {

    static final String HEADING = "## Values";
    private static final Pattern KEY = Pattern.compile("^( *)([A-Za-z][A-Za-z0-9_]*):(.*)$");
    private static final Pattern COMMENT = Pattern.compile("^ *#(.*)$");
    /** "# ----- TLS of EMQX -----": a heading in values.yaml, not a value's description. */
    private static final Pattern RULER = Pattern.compile("^\\s*-{3,}.*$");

    @Test
    void theReadmesValuesSectionIsGeneratedFromValuesYaml() throws Exception {
        String expected = section(Chart.read(Chart.DIR.resolve("values.yaml")));
        String readme = Chart.read(Chart.DIR.resolve("README.md"));
        int begin = readme.indexOf("\n" + HEADING + "\n");
        assertTrue(begin >= 0, "the chart's README has no \"" + HEADING + "\" section");
        int end = readme.indexOf("\n## ", begin + 1);
        String actual = readme.substring(begin + 1, end < 0 ? readme.length() : end + 1);
        if (!expected.equals(actual)) {
            Path out = Chart.DIR.getParent().resolve("target/README-values.md");
            Files.createDirectories(out.getParent());
            Files.writeString(out, expected);
            assertEquals(expected, actual, "helm/device-identity/README.md's \"" + HEADING + "\" is not values.yaml's;"
                    + " the generated section is in " + out);
        }
    }

    @Test
    void everyLeafIsListedOnceWithItsCommentAndDefault() throws Exception {
        String values = String.join("\n", "# Ignored: the file's header.", "",
                "top:", "  # The first one.", "  # Two lines.", "  first: 1", "  second: \"\"   # inline", "  # ----- ruler -----",
                "  list:", "    - a: 1", "      b: 2", "  nested:", "    deep: null", "  empty: {}");
        String table = section(values);
        assertTrue(table.contains("| `top.first` | `1` | The first one. Two lines. |\n"), table);
        assertTrue(table.contains("| `top.second` | `\"\"` | inline |\n"), table);
        assertTrue(table.contains("| `top.list` | `[{\"a\":1,\"b\":2}]` |  |\n"), table);
        assertTrue(table.contains("| `top.nested.deep` | `null` |  |\n"), table);
        assertTrue(table.contains("| `top.empty` | `{}` |  |\n"), table);
        assertEquals(5, table.lines().filter(l -> l.startsWith("| `")).count(), table);
    }

    /** The README's section for VALUES (the text of a values.yaml): a heading, a sentence, a table. */
    static String section(String values) throws Exception {
        Map<?, ?> parsed = new ObjectMapper(new YAMLFactory()).readValue(values, Map.class);
        ObjectMapper json = new ObjectMapper();
        StringBuilder out = new StringBuilder(HEADING).append("\n\n")
                .append("Every value of [values.yaml](values.yaml), its default and what values.yaml says of it (generated from\n")
                .append("values.yaml; `ChartReadmeListsEveryValueTest` fails when this table and the file differ).\n\n")
                .append("| value | default | meaning |\n|---|---|---|\n");
        Deque<String> path = new ArrayDeque<>();
        Deque<Integer> indents = new ArrayDeque<>();
        List<String> comment = new ArrayList<>();
        int skipDeeperThan = Integer.MAX_VALUE;
        for (String line : values.split("\n", -1)) {
            Matcher c = COMMENT.matcher(line);
            if (line.isBlank()) {
                comment.clear();
                continue;
            }
            if (c.matches()) {
                if (!RULER.matcher(c.group(1)).matches()) {
                    comment.add(c.group(1).strip());
                }
                continue;
            }
            Matcher k = KEY.matcher(line);
            int indent = line.length() - line.stripLeading().length();
            if (indent > skipDeeperThan || !k.matches()) {
                // Inside a list or a flow value whose default is printed whole.
                comment.clear();
                continue;
            }
            skipDeeperThan = Integer.MAX_VALUE;
            while (!indents.isEmpty() && indents.peek() >= indent) {
                indents.pop();
                path.pop();
            }
            indents.push(indent);
            path.push(k.group(2));
            Object value = at(parsed, path);
            if (value instanceof Map<?, ?> map && !map.isEmpty()) {
                comment.clear();
                continue;
            }
            skipDeeperThan = indent;
            List<String> description = new ArrayList<>(comment);
            int hash = k.group(3).indexOf(" #");
            if (hash >= 0) {
                description.add(k.group(3).substring(hash + 2).strip());
            }
            List<String> names = new ArrayList<>(path);
            java.util.Collections.reverse(names);
            out.append("| `").append(String.join(".", names)).append("` | `").append(json.writeValueAsString(value)
                    .replace("|", "\\|")).append("` | ").append(String.join(" ", description).replace("|", "\\|"))
                    .append(" |\n");
            comment.clear();
        }
        return out.toString();
    }

    private static Object at(Map<?, ?> root, Deque<String> path) {
        List<String> names = new ArrayList<>(path);
        java.util.Collections.reverse(names);
        Object node = root;
        for (String name : names) {
            node = ((Map<?, ?>) node).get(name);
        }
        return node;
    }
}
