package io.deviceidentity.loadtest.report;

import java.util.Map;

/**
 * One population part over a window (in summary.json under {@code parts} of {@code steady_state} and
 * {@code whole_run}, for runs whose population has several parts). Counted from the devices' side: an attempt ends
 * when the device has its result (EMQX's answer in time, or its timeout), and is counted in the window in which it
 * ended.
 * <ul>
 *   <li>{@code fresh_attempts}, {@code demand}: arrivals (first attempts) of this part, and per second;
 *       {@code demand_per_capacity} divides by the run's {@code --capacity}.</li>
 *   <li>{@code first_attempts}, {@code first_attempt_allows}, {@code first_attempt_success_share}: first attempts
 *       that ended in the window, how many of them were allowed, and the share.</li>
 *   <li>{@code allows}, {@code goodput}: allows in time (first attempts and retries), and per second;
 *       {@code goodput_per_capacity} divides by {@code --capacity}.</li>
 *   <li>{@code results}: what the devices got, by answer key ({@code 200 allow}, {@code 503 overload}, ...,
 *       {@code timeout}).</li>
 *   <li>{@code latency_allow}: allows, from the attempt entering EMQX's client to the device having it;
 *       {@code latency_first_attempt}: every first attempt's time to its result, whatever it was.</li>
 * </ul>
 */
public record PartSummary(
        String name,
        long freshAttempts,
        double demand,
        long retries,
        long populationExhausted,
        long firstAttempts,
        long firstAttemptAllows,
        Double firstAttemptSuccessShare,
        long allows,
        double goodput,
        Double goodputPerCapacity,
        Double demandPerCapacity,
        Map<String, Long> results,
        LatencySummary latencyAllow,
        LatencySummary latencyFirstAttempt) {
}
