package io.deviceidentity.helm;

import java.text.Normalizer;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** docs/operations.md, the on-call runbook the alerts' runbook_url point into, and its heading anchors. */
final class Runbook {

    static final java.nio.file.Path FILE = Chart.REPO.resolve("docs/operations.md");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.+?)\\s*#*\\s*$");

    private Runbook() {
    }

    /**
     * The anchors GitHub gives the headings (its Markdown renderer's rule: lower case; drop everything but letters,
     * digits, spaces, hyphens and underscores; spaces become hyphens; a repeated anchor gets -1, -2, ...).
     */
    static Set<String> anchors() {
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean fenced = false;
        for (String line : Chart.read(FILE).split("\n")) {
            if (line.startsWith("```")) {
                fenced = !fenced;
                continue;
            }
            Matcher m = HEADING.matcher(line);
            if (fenced || !m.matches()) {
                continue;
            }
            String slug = slug(m.group(1));
            int n = seen.merge(slug, 1, Integer::sum) - 1;
            anchors.add(n == 0 ? slug : slug + "-" + n);
        }
        return anchors;
    }

    static String slug(String heading) {
        String text = Normalizer.normalize(heading, Normalizer.Form.NFC).toLowerCase(java.util.Locale.ROOT);
        StringBuilder slug = new StringBuilder();
        text.codePoints().forEach(c -> {
            if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
                slug.appendCodePoint(c);
            } else if (c == ' ') {
                slug.append('-');
            }
        });
        return slug.toString();
    }

    /** The 503 reasons, read from identity-core's enum as the services answer them: OVERLOAD("overload"), ... */
    static List<String> unavailableReasons() {
        String source = Chart.read(Chart.REPO.resolve(
                "identity-core/src/main/java/io/deviceidentity/overload/UnavailableReason.java"));
        Matcher m = Pattern.compile("(?m)^\\s+[A-Z_]+\\(\"([a-z_]+)\"\\)[,;]").matcher(source);
        List<String> reasons = new java.util.ArrayList<>();
        while (m.find()) {
            reasons.add(m.group(1));
        }
        return reasons;
    }
}
