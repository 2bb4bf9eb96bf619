package io.deviceidentity.helm;

import java.util.Arrays;
import java.util.List;
import java.util.Set;

import io.deviceidentity.overload.UnavailableReason;
import io.deviceidentity.testsupport.Markdown;

/** docs/operations.md, the on-call runbook the alerts' runbook_url point into, and its heading anchors. */
final class Runbook {

    static final java.nio.file.Path FILE = Chart.REPO.resolve("docs/operations.md");

    private Runbook() {
    }

    /** The anchors GitHub gives the runbook's headings. */
    static Set<String> anchors() {
        return Markdown.anchors(Chart.read(FILE));
    }

    static String slug(String heading) {
        return Markdown.slug(heading);
    }

    /** The 503 reasons as the services answer them (identity-core's enum). */
    static List<String> unavailableReasons() {
        return Arrays.stream(UnavailableReason.values()).map(UnavailableReason::label).toList();
    }
}
