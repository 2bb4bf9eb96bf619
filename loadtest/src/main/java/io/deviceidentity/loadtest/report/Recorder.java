package io.deviceidentity.loadtest.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.deviceidentity.loadtest.devices.AttemptListener;
import io.deviceidentity.loadtest.emqx.Answer;
import io.deviceidentity.loadtest.emqx.CallListener;

/**
 * Counts everything the client and the devices report: per second, for the whole counted run (after the warm-up,
 * so a capacity figure does not include the JIT's first seconds) and for the steady-state window (see
 * {@link SteadyStateWindow}). The per-second series covers the whole run. A population of several parts also gets
 * each part's figures from the devices' side ({@link PartSummary}) in both windows. Runs on the event loop only, so
 * nothing here needs to be thread-safe.
 */
public final class Recorder implements CallListener, AttemptListener {

    private final Tally second = new Tally();
    private final Tally whole = new Tally();
    private final Tally steady = new Tally();
    private final LatencyHistogram wholeAdmitted = new LatencyHistogram();
    private final List<SecondStats> seconds = new ArrayList<>();
    private final List<PartTally> wholeParts = new ArrayList<>();
    private final List<PartTally> steadyParts = new ArrayList<>();
    private boolean counting;
    private boolean steadyState;

    /** A recorder without per-part figures (a population of one part). */
    public Recorder() {
        this(List.of());
    }

    /** With per-part figures for these parts (by index) when there are at least two. */
    public Recorder(List<String> partNames) {
        if (partNames.size() > 1) {
            for (String name : partNames) {
                wholeParts.add(new PartTally(name));
                steadyParts.add(new PartTally(name));
            }
        }
    }

    /** Starts the whole-run totals (the end of the warm-up). */
    public void startCounting() {
        counting = true;
    }

    /** Starts the steady-state window. */
    public void startSteadyState() {
        steadyState = true;
    }

    /** Stops every total (the run's end); nothing arriving later changes a summary. */
    public void stop() {
        counting = false;
        steadyState = false;
    }

    private List<Tally> active() {
        return counting && steadyState ? List.of(second, whole, steady)
                : counting ? List.of(second, whole) : steadyState ? List.of(second, steady) : List.of(second);
    }

    @Override
    public void offered() {
        active().forEach(t -> t.offered++);
    }

    /** The part tallies being counted now (none for a population of one part). */
    private List<PartTally> activeParts(int part) {
        if (wholeParts.isEmpty()) {
            return List.of();
        }
        return counting && steadyState ? List.of(wholeParts.get(part), steadyParts.get(part))
                : counting ? List.of(wholeParts.get(part)) : steadyState ? List.of(steadyParts.get(part)) : List.of();
    }

    @Override
    public void freshAttempt(int part) {
        active().forEach(t -> t.fresh++);
        activeParts(part).forEach(t -> t.fresh++);
    }

    @Override
    public void retryAttempt(int part) {
        active().forEach(t -> t.retries++);
        activeParts(part).forEach(t -> t.retries++);
    }

    @Override
    public void populationExhausted(int part) {
        active().forEach(t -> t.exhausted++);
        activeParts(part).forEach(t -> t.exhausted++);
    }

    @Override
    public void attemptEnded(int part, boolean firstAttempt, Answer answer, long latencyNanos) {
        activeParts(part).forEach(t -> t.ended(firstAttempt, answer, latencyNanos));
    }

    @Override
    public void expiredInQueue() {
        active().forEach(t -> t.expiredInQueue++);
    }

    @Override
    public void jammedConnectionDropped() {
        active().forEach(t -> t.jammedConnectionsDropped++);
    }

    @Override
    public void timedOut() {
        active().forEach(t -> t.timeouts++);
    }

    @Override
    public void answered(Answer answer, long latencyNanos, boolean inTime) {
        active().forEach(t -> t.answer(answer, latencyNanos, inTime));
        if (counting && answer.isAdmitted()) {
            wholeAdmitted.record(latencyNanos);
        }
    }

    @Override
    public void serviceTime(Answer answer, long sentToAnswerNanos) {
        active().forEach(t -> t.serviceTime(answer, sentToAnswerNanos));
    }

    /** A sample of EMQX's queues: all workers together and the longest one. */
    public void sampleQueues(int queued, int longest) {
        active().forEach(t -> t.queues(queued, longest));
    }

    /** Closes the current second and starts the next. */
    public SecondStats closeSecond(int inFlight, int queued, Integer pgConnections, Integer pgbouncerClients,
            long devicesConnected, long generatorLagMs) {
        active().forEach(t -> t.maxLagMs = Math.max(t.maxLagMs, generatorLagMs));
        SecondStats stats = new SecondStats(seconds.size() + 1, second.offered, second.fresh, second.retries,
                second.inTime.get("200 allow"), second.inTime.snapshot(), second.timeouts, second.late.total(),
                second.expiredInQueue, second.latency.summary(), inFlight, queued, pgConnections, pgbouncerClients,
                devicesConnected, generatorLagMs);
        seconds.add(stats);
        second.reset();
        return stats;
    }

    public List<SecondStats> seconds() {
        return List.copyOf(seconds);
    }

    /** 200 answers (allow or deny: each cost a bcrypt) that arrived late in the steady-state window. */
    public long steadyLate200() {
        return late200(steady);
    }

    public long wholeLate200() {
        return late200(whole);
    }

    public WindowSummary steadyState(SteadyStateWindow window, Double capacity, WastedWork wasted) {
        return summary(steady, steadyParts, window.startSecond(), window.endSecond(), window.rule(),
                window.clamped(), capacity, wasted);
    }

    public WindowSummary wholeRun(int startSecond, int endSecond, Double capacity, WastedWork wasted) {
        return summary(whole, wholeParts, startSecond, endSecond, null, false, capacity, wasted);
    }

    /** The whole run's totals (after warm-up), for {@code measuredSeconds} of counting. */
    public RunTotals totals(double measuredSeconds, int pendingAtEnd, long devicesConnected) {
        Tally total = whole;
        long allows = total.inTime.get("200 allow");
        long transportErrors = total.inTime.get(Answer.TRANSPORT_ERROR.key());
        return new RunTotals(measuredSeconds, total.offered, rate(total.offered, measuredSeconds), total.fresh,
                total.retries, allows, rate(allows, measuredSeconds), total.inTime.snapshot(),
                total.late.snapshot(), total.late.total(), total.timeouts, total.expiredInQueue, transportErrors,
                total.inTime.statusBetween(500, 600), total.late.statusBetween(500, 600),
                total.inTime.get("429 rate_limited"), total.exhausted, pendingAtEnd, devicesConnected,
                total.latency.summary(), wholeAdmitted.summary(), total.latency503.summary(), total.maxLagMs);
    }

    private static WindowSummary summary(Tally t, List<PartTally> parts, int start, int end, String rule,
            boolean clamped, Double capacity, WastedWork wasted) {
        int secondsLong = Math.max(0, end - start);
        long allows = t.inTime.get("200 allow");
        double goodput = rate(allows, secondsLong);
        Map<String, Long> outcomes = new TreeMap<>(t.inTime.snapshot());
        outcomes.put("late", t.late.total());
        outcomes.put("expired_in_queue", t.expiredInQueue);
        outcomes.put("timeout", t.timeouts);
        long other5xx = t.inTime.statusBetween(500, 600) + t.late.statusBetween(500, 600)
                - t.inTime.statusBetween(503, 504) - t.late.statusBetween(503, 504);
        Double perCapacity = capacity == null || capacity <= 0 ? null : Math.round(goodput / capacity * 100) / 100.0;
        Map<String, PartSummary> partSummaries = null;
        if (!parts.isEmpty()) {
            partSummaries = new LinkedHashMap<>();
            for (PartTally part : parts) {
                partSummaries.put(part.name, part.summary(secondsLong, capacity));
            }
        }
        return new WindowSummary(start, end, secondsLong, rule, clamped, goodput, perCapacity, allows,
                rate(t.offered, secondsLong), t.offered, t.fresh, t.retries, outcomes, t.late.snapshot(),
                t.late.total(), t.timeouts, t.expiredInQueue, t.jammedConnectionsDropped, other5xx,
                t.latencyAllow.summary(), t.latency503.summary(), t.latency503Service.summary(), t.queuedPeak, t.longestQueuePeak, t.maxLagMs,
                wasted, partSummaries);
    }

    private static long late200(Tally t) {
        return t.late.statusBetween(200, 201);
    }

    private static double rate(long count, double seconds) {
        return seconds <= 0 ? 0 : Math.round(count / seconds * 10) / 10.0;
    }
}
