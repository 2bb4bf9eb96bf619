package io.deviceidentity.qos2probe.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.HdrHistogram.Histogram;

import io.deviceidentity.qos2probe.auth.AuthCheck;
import io.deviceidentity.qos2probe.verdict.MessageResult;
import io.deviceidentity.qos2probe.verdict.ReasonCodes;
import io.deviceidentity.qos2probe.verdict.Verdict;

/**
 * The run's verdict, written as JSON. {@code duplicates} counts messages delivered more than once (not the extra
 * copies); {@code lost} those never delivered. {@code ok} is false on any lost or duplicated message, any faked
 * PUBCOMP, any message whose flow failed, and any auth check that did not hold: the exit code follows it.
 * Carries no password or token.
 */
public final class ProbeSummary {

    /** Messages listed in detail when they are not exactly once: enough to debug, bounded for big runs. */
    static final int MAX_LISTED = 20;

    private final Map<String, Object> json = new LinkedHashMap<>();
    private final boolean ok;

    public ProbeSummary(Map<String, Object> run, List<MessageResult> results, List<AuthCheck> authChecks,
            int subscriberRetransmissions) {
        int exactlyOnce = 0;
        int duplicates = 0;
        int lost = 0;
        int republished = 0;
        int faked = 0;
        int failedFlows = 0;
        int busyRetries = 0;
        Map<String, Integer> pubcompReasons = new TreeMap<>();
        Map<String, Integer> sessionPresent = new TreeMap<>();
        Histogram takeover = new Histogram(3_600_000L, 3);
        List<Map<String, Object>> listed = new ArrayList<>();
        for (MessageResult result : results) {
            var publisher = result.publisher();
            switch (result.verdict()) {
                case EXACTLY_ONCE -> exactlyOnce++;
                case DUPLICATED -> duplicates++;
                case LOST -> lost++;
            }
            if (publisher.pubcompReason() != null) {
                pubcompReasons.merge(ReasonCodes.hex(publisher.pubcompReason()), 1, Integer::sum);
            }
            if (publisher.sessionPresent() != null) {
                sessionPresent.merge(publisher.sessionPresent().toString(), 1, Integer::sum);
            }
            if (publisher.republished()) {
                republished++;
            }
            if (publisher.fakedPubcomp()) {
                faked++;
            }
            if (publisher.error() != null) {
                failedFlows++;
            }
            busyRetries += publisher.busyRetries();
            if (result.takeoverMs() != null) {
                takeover.recordValue(Math.max(1, Math.round(result.takeoverMs() * 1000)));
            }
            boolean clean = result.verdict() == Verdict.EXACTLY_ONCE && publisher.error() == null
                    && !publisher.fakedPubcomp();
            if (!clean && listed.size() < MAX_LISTED) {
                listed.add(detail(result));
            }
        }
        List<Map<String, Object>> checks = authChecks.stream().map(AuthCheck::toJson).toList();
        boolean authOk = authChecks.stream().allMatch(AuthCheck::ok);
        ok = duplicates == 0 && lost == 0 && faked == 0 && failedFlows == 0 && authOk && !results.isEmpty();

        json.put("ok", ok);
        json.putAll(run);
        json.put("messages", results.size());
        json.put("exactly_once", exactlyOnce);
        json.put("duplicates", duplicates);
        json.put("lost", lost);
        json.put("pubcomp_reasons", pubcompReasons);
        json.put("republished", republished);
        json.put("session_present_on_reconnect", sessionPresent);
        json.put("faked_pubcomp", faked);
        json.put("failed_flows", failedFlows);
        json.put("server_busy_retries", busyRetries);
        json.put("subscriber_retransmissions", subscriberRetransmissions);
        json.put("takeover_ms", percentiles(takeover));
        Map<String, Object> auth = new LinkedHashMap<>();
        auth.put("enabled", !authChecks.isEmpty());
        auth.put("ok", authOk);
        auth.put("checks", checks);
        json.put("auth_checks", auth);
        json.put("not_exactly_once", listed);
    }

    private static Map<String, Object> detail(MessageResult result) {
        var p = result.publisher();
        Map<String, Object> detail = new LinkedHashMap<>();
        detail.put("payload", p.payload());
        detail.put("verdict", result.verdict().name().toLowerCase());
        detail.put("deliveries", result.deliveries());
        detail.put("error", p.error());
        detail.put("faked_pubcomp", p.fakedPubcomp());
        detail.put("packets", p.log());
        return detail;
    }

    private static Map<String, Object> percentiles(Histogram histogram) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("count", histogram.getTotalCount());
        if (histogram.getTotalCount() > 0) {
            p.put("min", ms(histogram.getMinValue()));
            p.put("p50", ms(histogram.getValueAtPercentile(50)));
            p.put("p90", ms(histogram.getValueAtPercentile(90)));
            p.put("p99", ms(histogram.getValueAtPercentile(99)));
            p.put("max", ms(histogram.getMaxValue()));
        }
        return p;
    }

    /** Recorded in microseconds, reported in milliseconds with one decimal. */
    private static double ms(long micros) {
        return Math.round(micros / 100.0) / 10.0;
    }

    public boolean ok() {
        return ok;
    }

    public Map<String, Object> json() {
        return json;
    }
}
