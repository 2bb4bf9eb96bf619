package io.deviceidentity.overload;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * Overload control shared by both services: the request deadline, admission to the bcrypt lane by waiting time,
 * and the database step's threads. Every limit here answers the excess with a 503 at once instead of queueing it.
 */
@ConfigMapping(prefix = "identity.overload")
public interface OverloadConfig {

    /**
     * Time a request may take, measured from its arrival: the outer bound of every answer. Must stay below the
     * caller's timeout minus one bcrypt (EMQX's {@code request_timeout} is 10 s in the chart).
     */
    @WithDefault("4s")
    Duration deadline();

    Bcrypt bcrypt();

    Database database();

    /**
     * How often the outcome log summarises refusals (503 answers), one INFO line per operation and reason with
     * their count, instead of a line per refusal: in a storm nearly every answer is one, and on a pod of a fraction
     * of a CPU a line each takes a measurable part of the CPU bcrypt needs. Each refusal is still counted in the
     * outcome metric and logged at DEBUG. {@code 0s}: one INFO line per refusal, as for every other answer.
     */
    @WithDefault("10s")
    Duration refusalLogInterval();

    /** See {@link ControlledDelay} for the rule these numbers feed. */
    interface Bcrypt {
        /**
         * Hashes computed at once. Defaults to the CPUs the JVM sees, which in a container is its CPU limit: more
         * threads than cores only make every hash slower.
         */
        OptionalInt concurrency();

        /**
         * How long a request may wait for a bcrypt thread while the queue has drained within the last
         * {@link #interval()}: absorbs a burst. Default 1 s.
         */
        @WithDefault("1s")
        Duration maxWait();

        /**
         * How long a request may wait once the queue has stayed non-empty for a whole {@link #interval()} (a standing
         * queue, i.e. overload). Default: two hash times, from the moving average of measured hashes.
         */
        Optional<Duration> targetWait();

        /** How long the queue must stay non-empty before the short {@link #targetWait()} applies. Default 100 ms. */
        @WithDefault("100ms")
        Duration interval();

        /**
         * Hard cap on hashes waiting for a thread, a memory bound behind the waiting-time rule. Defaults to what
         * {@link #maxWait()} can hold: ceil(max-wait ÷ expected-duration) × concurrency.
         */
        OptionalInt queue();

        /**
         * One cost-10 bcrypt check ({@code CheckCost}'s unit): the starting estimate of time per unit, replaced by a
         * moving average of measured hash time ÷ units once hashes run, which turns the units ahead of a request into
         * an expected waiting time; and the most a unit is taken to cost for a request that finds a thread free, so
         * that slow measurements can never make an idle lane refuse (WaitingTimeRule says why).
         */
        @WithDefault("80ms")
        Duration expectedDuration();

        /**
         * Run bcrypt threads under Linux's {@code SCHED_IDLE} policy, so that the event loop writing answers (and
         * refusals) and the JIT get the CPU first. Unset (the default): decided by the pod's CPU limit
         * ({@link CpuQuota}, {@link SchedulingPlan}): {@code SCHED_IDLE} with a whole CPU or more, or no limit; below
         * one CPU normal priority, with the JIT's compiler threads at nice 19 instead, because there a
         * {@code SCHED_IDLE} thread loses the pod's quota to every other thread (docs/overload.md). Silently
         * unavailable off Linux and in a native image (see the startup log and {@code identity.bcrypt.idle.threads}).
         */
        Optional<Boolean> idlePriority();
    }

    interface Database {
        /**
         * Threads that run the database step of requests, with no queue: when all are busy, a request is answered
         * 503 overload at once. Defaults to the datasource's {@code quarkus.datasource.jdbc.max-size}, since a
         * thread more than there are connections could only wait for one.
         */
        OptionalInt concurrency();

        /**
         * How long a request may wait for a database thread when all are busy. A step takes about a millisecond, so
         * a few tens of milliseconds absorb the bursts of a fast-path storm (64 EMQX connections behind 10 pooled
         * connections) instead of refusing them; a request whose expected wait is longer, or that finds no step
         * started or finished for this long (a stalled database), is refused at once, and one that waited longer
         * than this when a thread takes it is refused without running. {@code 0s}: no queue at all.
         */
        @WithDefault("25ms")
        Duration maxWait();

        /** Hard cap on waiting steps (a memory bound; the waiting-time rule refuses first). */
        @WithDefault("200")
        int queue();

        /**
         * The part of the database threads that only work for client ids known to exist may use (rounded up, at
         * least one thread when there are two or more, never all of them): everything else (unknown ids, a source
         * over its failure budget) may hold at most the rest, running or waiting, so a flood of invented client ids
         * cannot take the reads of the known fleet. {@code 0}: no reservation.
         */
        @WithDefault("0.25")
        double reservedForKnown();
    }
}
