package io.deviceidentity.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

class PrometheusTextTest {

    private static final String TEXT = """
            # HELP identity_bcrypt_duration_seconds Time of one bcrypt verification
            # TYPE identity_bcrypt_duration_seconds summary
            identity_bcrypt_duration_seconds_count{impl="jbcrypt",outcome="match"} 120.0
            identity_bcrypt_duration_seconds_count{impl="jbcrypt",outcome="mismatch"} 30.0
            identity_bcrypt_duration_seconds_sum{impl="jbcrypt",outcome="match"} 9.6
            identity_bcrypt_duration_seconds_max{impl="jbcrypt",outcome="match"} 0.2
            # TYPE identity_bcrypt_wasted_total counter
            identity_bcrypt_wasted_total 7.0 1733040000000
            odd_labels_total{path="/a b}c",q="x\\"y"} 2
            not_a_number_total NaN
            identity_bcrypt_wasted_total_created 1.7E9
            """;

    @Test
    void sumsTheWantedNamesOverTheirLabelSets() {
        Map<String, Double> values = PrometheusText.parse(TEXT, Set.of("identity_bcrypt_duration_seconds_count",
                "identity_bcrypt_wasted_total", "odd_labels_total", "not_a_number_total", "absent_total"));
        assertEquals(150.0, values.get("identity_bcrypt_duration_seconds_count"));
        assertEquals(7.0, values.get("identity_bcrypt_wasted_total"), "a timestamp after the value is ignored");
        assertEquals(2.0, values.get("odd_labels_total"), "braces and quotes inside label values");
        assertFalse(values.containsKey("not_a_number_total"));
        assertFalse(values.containsKey("absent_total"));
        assertEquals(3, values.size(), "_sum/_max/_created are other names");
    }

    @Test
    void anEmptyOrForeignPageGivesNothing() {
        assertEquals(Map.of(), PrometheusText.parse("", Set.of("x")));
        assertEquals(Map.of(), PrometheusText.parse("<html>not metrics</html>\n{broken", Set.of("x")));
    }

    @Test
    void aSelectorWithLabelsSumsTheSeriesCarryingThemWhateverTheirOrder() {
        assertEquals(120.0, PrometheusText.sum(TEXT,
                MetricSelector.parse("identity_bcrypt_duration_seconds_count{outcome=\"match\",impl=\"jbcrypt\"}")));
        assertEquals(150.0, PrometheusText.sum(TEXT, MetricSelector.parse("identity_bcrypt_duration_seconds_count{impl=\"jbcrypt\"}")));
        assertEquals(0.0, PrometheusText.sum(TEXT, MetricSelector.parse("identity_bcrypt_duration_seconds_count{impl=\"other\"}")));
        assertEquals(2.0, PrometheusText.sum(TEXT, MetricSelector.parse("odd_labels_total{path=\"/a b}c\"}")),
                "a brace inside a label value");
        assertEquals(2.0, PrometheusText.sum(TEXT, MetricSelector.parse("odd_labels_total{q=\"x\\\"y\"}")),
                "an escaped quote inside a label value");
    }

    @Test
    void aRegexMatcherSumsTheSeriesWhoseWholeLabelValueMatches() {
        assertEquals(30.0, PrometheusText.sum(TEXT,
                MetricSelector.parse("identity_bcrypt_duration_seconds_count{outcome=~\"mis.*\"}")));
        assertEquals(150.0, PrometheusText.sum(TEXT,
                MetricSelector.parse("identity_bcrypt_duration_seconds_count{impl=\"jbcrypt\",outcome=~\"match|mismatch\"}")));
        assertEquals(0.0, PrometheusText.sum(TEXT, MetricSelector.parse("identity_bcrypt_duration_seconds_count{outcome=~\"mis\"}")),
                "anchored at both ends, as PromQL's =~");
        assertEquals(0.0, PrometheusText.sum(TEXT, MetricSelector.parse("identity_bcrypt_duration_seconds_count{absent=~\".+\"}")),
                "a label the series does not carry never matches");
    }

    @Test
    void aMalformedSelectorIsRefused() {
        for (String bad : List.of("identity authn", "x{result=allow}", "x{result=~\"(\"}", "x{result=\"a\"")) {
            assertThrows(IllegalArgumentException.class, () -> MetricSelector.parse(bad), bad);
        }
    }

    @Test
    void aSeriesIsWrittenBackAsThePageWroteIt() {
        assertEquals(List.of("identity_bcrypt_duration_seconds_count{impl=\"jbcrypt\",outcome=\"match\"}",
                "odd_labels_total{path=\"/a b}c\",q=\"x\\\"y\"}"),
                PrometheusText.samples(TEXT).stream().map(PrometheusText.Sample::series)
                        .filter(s -> s.endsWith("\"match\"}") && s.contains("count") || s.startsWith("odd")).toList());
    }
}
