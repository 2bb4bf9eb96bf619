package io.deviceidentity.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.fabric8.kubernetes.api.model.ConfigMap;

/** docs/operations.md has a section for every 503 reason the services answer and for every dashboard panel. */
class RunbookTest {

    @Test
    void everyUnavailableReasonInTheCodeHasASection() {
        List<String> reasons = Runbook.unavailableReasons();
        assertTrue(reasons.containsAll(List.of("overload", "deadline", "backend_unavailable")),
                "the enum was not read: " + reasons);
        Set<String> anchors = Runbook.anchors();
        for (String reason : reasons) {
            assertTrue(anchors.contains(Runbook.slug("503 `" + reason + "`")),
                    () -> "no heading \"503 `" + reason + "`\" in docs/operations.md");
        }
    }

    @Test
    void everyDashboardPanelHasASectionNamedByItsTitle() throws Exception {
        ConfigMap map = Chart.render(Chart.set("metrics.grafanaDashboard.enabled", true))
                .get(ConfigMap.class, Chart.name("dashboard"));
        JsonNode dashboard = new ObjectMapper().readTree(map.getData().get("device-identity.json"));
        Set<String> anchors = Runbook.anchors();
        for (JsonNode panel : dashboard.get("panels")) {
            String title = panel.get("title").asText();
            assertTrue(anchors.contains(Runbook.slug("Panel: " + title)),
                    () -> "no heading \"Panel: " + title + "\" in docs/operations.md");
        }
    }

    @Test
    void anchorsFollowGitHubsRules() {
        assertEquals("503-backend_unavailable", Runbook.slug("503 `backend_unavailable`"));
        assertEquals("panel-fast-path-vs-bcrypt-allows", Runbook.slug("Panel: Fast path vs bcrypt allows"));
        assertEquals("identityoverloadanswers", Runbook.slug("IdentityOverloadAnswers"));
    }
}
