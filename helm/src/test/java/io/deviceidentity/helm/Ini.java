package io.deviceidentity.helm;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.Map;

/** A PgBouncer ini: sections of {@code key = value}; {@code ;} and {@code #} start comments. Duplicate keys fail. */
record Ini(Map<String, Map<String, String>> sections) {

    static Ini parse(String text) {
        Map<String, Map<String, String>> sections = new LinkedHashMap<>();
        Map<String, String> current = null;
        for (String raw : text.split("\n")) {
            String line = raw.trim();
            if (line.isEmpty() || line.startsWith(";") || line.startsWith("#")) {
                continue;
            }
            if (line.startsWith("[") && line.endsWith("]")) {
                current = sections.computeIfAbsent(line.substring(1, line.length() - 1), k -> new LinkedHashMap<>());
                continue;
            }
            int eq = line.indexOf('=');
            assertTrue(eq > 0 && current != null, "not an ini line: " + raw);
            String key = line.substring(0, eq).trim();
            assertTrue(current.put(key, line.substring(eq + 1).trim()) == null, "duplicate key " + key);
        }
        return new Ini(sections);
    }

    Map<String, String> section(String name) {
        Map<String, String> section = sections.get(name);
        assertTrue(section != null, "no [" + name + "] section");
        return section;
    }
}
