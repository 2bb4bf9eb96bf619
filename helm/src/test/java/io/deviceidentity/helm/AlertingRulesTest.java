package io.deviceidentity.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.openshift.api.model.monitoring.v1.PrometheusRule;
import io.fabric8.openshift.api.model.monitoring.v1.Rule;
import io.fabric8.openshift.api.model.monitoring.v1.RuleGroup;

/** The optional PrometheusRule: rendered only when asked, strictly typed, complete, and pointing into the runbook. */
class AlertingRulesTest {

    static final String BASE = "https://git.example.com/device-identity/-/blob/main";
    static final Map<String, Object> ENABLED = Chart.set("alerts.enabled", true, "alerts.runbookBaseUrl", BASE);
    static final Set<String> SEVERITIES = Set.of("critical", "warning", "info");

    static Map<String, Object> enabledWith(Object... keyValues) {
        Map<String, Object> sets = new LinkedHashMap<>(ENABLED);
        sets.putAll(Chart.set(keyValues));
        return sets;
    }

    /**
     * Helm's --set passes a decimal (0.5) as a string, which the schema refuses: decimals go in a values file, written
     * here from YAML, as an operator's would.
     */
    static java.nio.file.Path valuesFile(String yaml) {
        try {
            java.nio.file.Path file = java.nio.file.Files.createTempFile("alerts-values", ".yaml");
            java.nio.file.Files.writeString(file, yaml);
            file.toFile().deleteOnExit();
            return file;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static List<Rule> rules(Map<String, Object> sets, java.nio.file.Path... valuesFiles) {
        List<PrometheusRule> all = Chart.render(sets, valuesFiles).all(PrometheusRule.class);
        assertEquals(1, all.size(), "one PrometheusRule");
        return all.get(0).getSpec().getGroups().stream().flatMap(g -> g.getRules().stream()).toList();
    }

    /** The rule of {@code alert} whose expression mentions {@code service}. */
    static Rule rule(List<Rule> rules, String alert, String service) {
        return rules.stream().filter(r -> r.getAlert().equals(alert))
                .filter(r -> r.getExpr().getStrVal().contains("service=\"" + Chart.name(service) + "\""))
                .findFirst().orElseThrow(() -> new AssertionFailedError(alert + " for " + service + " not rendered"));
    }

    @Test
    void theRuleIsAbsentByDefaultSoThatAClusterWithoutTheOperatorInstalls() {
        assertTrue(Chart.render().resources().stream().noneMatch(r -> r.getKind().equals("PrometheusRule")));
    }

    @Test
    void theRuleRendersInTheReleaseNamespaceWithTheConfiguredLabels() {
        PrometheusRule rule = Chart.render(enabledWith("alerts.labels.release", "kube-prometheus-stack"))
                .get(PrometheusRule.class, Chart.name("alerts"));
        assertEquals(Chart.NAMESPACE, rule.getMetadata().getNamespace());
        assertEquals("kube-prometheus-stack", rule.getMetadata().getLabels().get("release"));
        assertEquals("device-identity", rule.getMetadata().getLabels().get("app.kubernetes.io/part-of"));
        assertEquals(List.of("device-identity.answers", "device-identity.latency", "device-identity.pools",
                "device-identity.kicks", "device-identity.fastpath"), rule.getSpec().getGroups().stream().map(RuleGroup::getName).toList());
    }

    @Test
    void enablingAlertsWithoutAWhereForTheRunbookIsRefusedNamingTheValue() {
        assertTrue(Chart.refusal(Chart.set("alerts.enabled", true)).contains("alerts.runbookBaseUrl"));
    }

    @Test
    void aMisspeltFieldInAPrometheusRuleFailsTheStrictParse() {
        String yaml = """
                apiVersion: monitoring.coreos.com/v1
                kind: PrometheusRule
                metadata: {name: x}
                spec:
                  groups:
                    - name: g
                      rules:
                        - alert: A
                          expr: up == 0
                          anotations: {summary: s}
                """;
        AssertionFailedError failure = assertThrows(AssertionFailedError.class, () -> Chart.parseStrictly(yaml));
        assertTrue(failure.getMessage().contains("anotations"), failure.getMessage());
    }

    @Test
    void everyAlertHasASeveritySummaryDescriptionAndARunbookUrlIntoOperationsMd() {
        List<Rule> rules = rules(enabledWith("pgbouncer.exporter.enabled", true));
        Set<String> anchors = Runbook.anchors();
        Set<String> alerts = new TreeSet<>();
        for (Rule r : rules) {
            alerts.add(r.getAlert());
            assertTrue(SEVERITIES.contains(r.getLabels().get("severity")), r.getAlert() + " severity " + r.getLabels());
            assertFalse(r.getAnnotations().getOrDefault("summary", "").isBlank(), r.getAlert() + " has no summary");
            assertFalse(r.getAnnotations().getOrDefault("description", "").isBlank(), r.getAlert() + " has no description");
            String url = r.getAnnotations().getOrDefault("runbook_url", "");
            String prefix = BASE + "/docs/operations.md#";
            assertTrue(url.startsWith(prefix), r.getAlert() + " runbook_url " + url);
            String anchor = url.substring(prefix.length());
            assertTrue(anchors.contains(anchor), () -> r.getAlert() + ": no heading with anchor #" + anchor
                    + " in docs/operations.md; have " + anchors);
            assertFalse(r.getFor() == null || r.getFor().isBlank(), r.getAlert() + " has no for");
        }
        assertEquals(Set.of("IdentityOverloadAnswers", "IdentityBackendUnavailable", "IdentityCircuitBreakerOpen",
                "IdentityLatencyNearDeadline", "IdentityJdbcPoolSaturated", "IdentityDatabaseLaneSaturated",
                "IdentityBcryptStandingQueue", "IdentityPgBouncerClientsWaiting", "IdentityFastPathHitRatioLow",
                "IdentityKickNotDelivered"),
                alerts);
    }

    @Test
    void theKickAlertReadsTheOldestPendingKickAgainstItsMaxAgeAndNeedsKicks() {
        List<Rule> rules = rules(enabledWith("alerts.kickNotDelivered.maxAge", "10m",
                "alerts.kickNotDelivered.for", "3m", "alerts.kickNotDelivered.severity", "warning"));
        Rule kick = rules.stream().filter(r -> r.getAlert().equals("IdentityKickNotDelivered")).findFirst().orElseThrow();
        String expr = kick.getExpr().getStrVal();
        assertTrue(expr.contains("identity_registration_kicks_oldest_pending_seconds{namespace=\"identity\","
                + "service=\"device-identity-registration-service\"}") && expr.endsWith("> 600"), expr);
        assertEquals("3m", kick.getFor());
        assertEquals("warning", kick.getLabels().get("severity"));
        assertFalse(rules(enabledWith("registrationService.kicks.enabled", false)).stream()
                .anyMatch(r -> r.getAlert().equals("IdentityKickNotDelivered")), "no kicks, no kick alert");
    }

    @Test
    void aTrailingSlashOnTheRunbookBaseIsNotDoubled() {
        rules(enabledWith("alerts.runbookBaseUrl", BASE + "/")).forEach(r ->
                assertTrue(r.getAnnotations().get("runbook_url").startsWith(BASE + "/docs/operations.md#"),
                        r.getAnnotations().get("runbook_url")));
    }

    @Test
    void everyExpressionParsesAsPromQl() throws Exception {
        for (Rule r : rules(enabledWith("pgbouncer.exporter.enabled", true))) {
            PromQl.check(r.getExpr().getStrVal());
        }
        for (String expr : dashboardExpressions()) {
            PromQl.check(expr.replace("$namespace", "ns"));
        }
    }

    @Test
    void thePromQlCheckRefusesBrokenExpressions() {
        for (String broken : List.of("sum(rate(x[5m])", "rate(x{a=\"b\"[5m])", "x{a=b}", "summ(x)", "x >", "rate(x[5])",
                "sum by (a (x)")) {
            assertThrows(IllegalArgumentException.class, () -> PromQl.check(broken), broken);
        }
        PromQl.check("sum by (a) (rate(x_total{a=\"b\",c=~\"d|e\"}[5m])) / on (a) group_left sum(y) > 0.5 or vector(1)");
    }

    @Test
    void latencyThresholdsFollowEachServicesDeadline() {
        List<Rule> rules = rules(enabledWith("authService.overload.deadline", "2s", "pgbouncer.queryWaitTimeout", "1s"),
                valuesFile("alerts: {latency: {deadlineFraction: 0.5}}"));
        assertTrue(rule(rules, "IdentityLatencyNearDeadline", "auth-service").getExpr().getStrVal().endsWith("> 1"));
        // registration-service keeps its 4s deadline.
        assertTrue(rule(rules, "IdentityLatencyNearDeadline", "registration-service").getExpr().getStrVal().endsWith("> 2"));
        assertTrue(rule(rules(ENABLED), "IdentityLatencyNearDeadline", "auth-service").getExpr().getStrVal().endsWith("> 3"),
                "default: 0.75 x 4s");
    }

    @Test
    void poolThresholdsFollowThePoolSizeAndPgBouncersQueryWaitTimeout() {
        List<Rule> rules = rules(enabledWith("authService.db.poolMaxSize", 20, "pgbouncer.exporter.enabled", true,
                "pgbouncer.queryWaitTimeout", "2s"),
                valuesFile("alerts: {jdbcPool: {activeFraction: 0.5}, pgbouncerWait: {queryWaitTimeoutFraction: 0.25}}"));
        assertTrue(rule(rules, "IdentityJdbcPoolSaturated", "auth-service").getExpr().getStrVal().endsWith(">= 10"));
        assertTrue(rule(rules, "IdentityJdbcPoolSaturated", "registration-service").getExpr().getStrVal().endsWith(">= 5"));
        Rule pgbouncer = rules.stream().filter(r -> r.getAlert().equals("IdentityPgBouncerClientsWaiting")).findFirst()
                .orElseThrow();
        assertTrue(pgbouncer.getExpr().getStrVal().endsWith("> 0.5"), pgbouncer.getExpr().getStrVal());
    }

    @Test
    void ratiosWindowsDurationsAndSeveritiesFollowTheirValues() {
        List<Rule> rules = rules(enabledWith("alerts.overload.window", "3m", "alerts.overload.for", "7m",
                "alerts.overload.severity", "critical", "alerts.fastPathHitRatio.minChecksPerSecond", 5),
                valuesFile("alerts: {overload: {ratio: 0.2}, fastPathHitRatio: {minRatio: 0.3}}"));
        Rule overload = rule(rules, "IdentityOverloadAnswers", "auth-service");
        assertTrue(overload.getExpr().getStrVal().endsWith("> 0.2"), overload.getExpr().getStrVal());
        assertTrue(overload.getExpr().getStrVal().contains("[3m]"));
        assertEquals("7m", overload.getFor());
        assertEquals("critical", overload.getLabels().get("severity"));
        String fastPath = rule(rules, "IdentityFastPathHitRatioLow", "auth-service").getExpr().getStrVal();
        assertTrue(fastPath.contains("< 0.3") && fastPath.endsWith(">= 5"), fastPath);
    }

    @Test
    void overloadAndBackendAlertsCoverEveryOperationsOutcomeCounter() {
        Map<String, String> metricByOperation = new HashMap<>();
        for (Rule r : rules(ENABLED)) {
            if (r.getAlert().equals("IdentityOverloadAnswers")) {
                Matcher m = Pattern.compile("identity_[a-z]+_outcomes_total").matcher(r.getExpr().getStrVal());
                assertTrue(m.find());
                metricByOperation.put(r.getLabels().get("operation"), m.group());
            }
        }
        assertEquals(Map.of("authn", "identity_authn_outcomes_total", "authz", "identity_authz_outcomes_total",
                "registration", "identity_registration_outcomes_total"), metricByOperation);
    }

    @Test
    void pgBouncerAndFastPathAlertsAppearOnlyWhenTheirMetricsExist() {
        Set<String> byDefault = new TreeSet<>(rules(ENABLED).stream().map(Rule::getAlert).toList());
        assertFalse(byDefault.contains("IdentityPgBouncerClientsWaiting"), "no exporter, no PgBouncer metrics");
        assertTrue(byDefault.contains("IdentityFastPathHitRatioLow"));
        Set<String> noFastPath = new TreeSet<>(rules(enabledWith("authService.fastPath.enabled", false)).stream()
                .map(Rule::getAlert).toList());
        assertFalse(noFastPath.contains("IdentityFastPathHitRatioLow"));
    }

    @Test
    void theSchemaAcceptsTheAlertValuesAndRefusesWrongTypesNamingTheField() {
        Chart.render(enabledWith("alerts.latency.for", "15m", "alerts.circuitBreakerOpen.for", "0s",
                "alerts.bcryptStandingQueue.severity", "info"),
                valuesFile("alerts: {overload: {ratio: 0.1}, fastPathHitRatio: {minChecksPerSecond: 0.5}}"));
        // {value key, value, the field the refusal must name}
        List<Object[]> wrong = List.of(new Object[] {"alerts.enabled", "yes", "enabled"},
                new Object[] {"alerts.overload.ratio", "high", "ratio"},
                new Object[] {"alerts.overload.ratio", 2, "ratio"},
                new Object[] {"alerts.latency.for", 5, "for"},
                new Object[] {"alerts.overload.window", "5 minutes", "window"},
                new Object[] {"alerts.jdbcPool.severity", "page", "severity"},
                new Object[] {"alerts.overlaod.ratio", 0.1, "overlaod"},
                new Object[] {"alerts.runbookBaseUrl", "git.example.com", "runbookBaseUrl"},
                new Object[] {"alerts.fastPathHitRatio.minChecksPerSecond", -1, "minChecksPerSecond"});
        for (Object[] kv : wrong) {
            String message = Chart.refusal(enabledWith(kv[0], kv[1]));
            assertTrue(message.contains((String) kv[2]), () -> kv[0] + "=" + kv[1] + ": " + message);
        }
    }

    static List<String> dashboardExpressions() throws Exception {
        ConfigMap map = Chart.render(Chart.set("metrics.grafanaDashboard.enabled", true))
                .get(ConfigMap.class, Chart.name("dashboard"));
        JsonNode dashboard = new ObjectMapper().readTree(map.getData().get("device-identity.json"));
        List<String> exprs = new java.util.ArrayList<>();
        for (JsonNode panel : dashboard.get("panels")) {
            panel.get("targets").forEach(t -> exprs.add(t.get("expr").asText()));
        }
        return exprs;
    }
}
