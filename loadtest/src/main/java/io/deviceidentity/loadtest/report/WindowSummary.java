package io.deviceidentity.loadtest.report;

import java.util.Map;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * One span of a run, in summary.json as {@code steady_state} (the headline) and {@code whole_run} (the counted
 * run, after warm-up). From {@code start_s} to {@code end_s} seconds into the run.
 * <ul>
 *   <li>{@code goodput}: {@code 200 allow} answers that reached EMQX in time, per second; {@code goodput_per_capacity}
 *       divides by the run's {@code --capacity} (null when not given).</li>
 *   <li>{@code outcomes}: in-time answers by key ({@code 200 allow}, {@code 503 overload}, {@code 503 deadline},
 *       {@code transport_error}, ...), plus {@code late} (answers that arrived after the call's expiry, dropped
 *       unread), {@code expired_in_queue} (dropped unsent) and {@code timeout} (callers that got EMQX's timeout, for
 *       whatever cause: the late and the expired ones end there too).</li>
 *   <li>{@code jammed_connections_dropped}: EMQX connections dropped because nothing on them was answered for 10 s
 *       after the newest request's expiry, each opened anew with a full TLS handshake (ehttpc's zombie check).</li>
 *   <li>{@code latency_allow}, {@code latency_503}: HdrHistogram percentiles of every {@code 200 allow} / 503 answer
 *       received (in time or late), from the call entering EMQX's queue.</li>
 *   <li>{@code emqx_queue_peak}: the most calls waiting in all EMQX workers' queues together, sampled every 100 ms;
 *       {@code emqx_worker_queue_peak}: the longest single worker queue.</li>
 *   <li>{@code status5xx_other}: 5xx answers other than 503, in time or late (a 500 is a bug, not a refusal).</li>
 *   <li>{@code wasted_work}: see {@link WastedWork}.</li>
 *   <li>{@code parts}: each population part's own figures, by name (see {@link PartSummary}); only for a population
 *       of several parts.</li>
 * </ul>
 */
public record WindowSummary(
        int startS,
        int endS,
        int seconds,
        String rule,
        boolean clamped,
        double goodput,
        Double goodputPerCapacity,
        long allowsInTime,
        double offeredRate,
        long offered,
        long freshAttempts,
        long retries,
        Map<String, Long> outcomes,
        Map<String, Long> lateAnswers,
        long lateAnswersTotal,
        long timeouts,
        long expiredInQueue,
        long jammedConnectionsDropped,
        long status5xxOther,
        LatencySummary latencyAllow,
        @JsonProperty("latency_503") LatencySummary latency503,
        @JsonProperty("latency_503_at_service") LatencySummary latency503AtService,
        int emqxQueuePeak,
        int emqxWorkerQueuePeak,
        long maxGeneratorLagMs,
        WastedWork wastedWork,
        @JsonInclude(JsonInclude.Include.NON_NULL) Map<String, PartSummary> parts) {
}
