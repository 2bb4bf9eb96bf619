package io.deviceidentity.overload;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import io.deviceidentity.credentials.CheckCost;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;

/**
 * The two lanes, each a {@link Lane} with its own settings ({@link OverloadConfig}), its own meters and its own
 * sentences, built at start so that a configuration no request could ever pass stops the service then.
 * <ul>
 *   <li><b>bcrypt</b> ({@link BcryptWork}): threads = the CPUs the pod may use; waits governed by
 *       {@link ControlledDelay} (about a second while the queue drains, two hash times once it stands); work charged
 *       at its {@link CheckCost} and judged against its deadline; answers bounded by the deadline; its threads
 *       scheduled by {@link BcryptScheduling}.</li>
 *   <li><b>database</b> ({@link DatabaseWork}): one thread per pooled connection (a second could only wait for the
 *       pool); a short fixed wait ({@code max-wait}, 25 ms) that absorbs a fast-path storm's bursts, the wait foreseen
 *       from how often a thread frees, a stalled database refused at once; known devices keep a share of the threads
 *       ({@link Partitions}); failures told by {@link DatabaseAttribution}.</li>
 * </ul>
 */
@Singleton
public class Lanes {

    private static final Logger LOG = Logger.getLogger(Lanes.class);
    /** Default target wait of the bcrypt lane under a standing queue, in hash times. */
    private static final int TARGET_WAIT_HASHES = 2;
    /** Starting estimate of one database step, replaced by a moving average of measured ones. */
    private static final long INITIAL_STEP_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    private static final Map<Refusal, String> BCRYPT_SENTENCES = Map.of(
            Refusal.FULL, "the bcrypt queue is full",
            Refusal.EXPECTED_WAIT, "bcrypt is saturated: this request could not start within its allowed wait",
            Refusal.PAST_DEADLINE, "bcrypt work ahead of this request would not finish before its deadline",
            Refusal.TOO_LONG_FOR_DEADLINE,
            "this check would not finish before its deadline even on an idle bcrypt thread",
            Refusal.WAITED, "this request waited for bcrypt longer than allowed");
    private static final Map<Refusal, String> DATABASE_SENTENCES = Map.of(
            Refusal.SHARE_FULL, "the database threads not reserved for known devices are busy",
            Refusal.FULL, "every database thread is busy and no more may wait",
            Refusal.STALLED, "every database thread is busy and none has started or finished a step lately",
            Refusal.EXPECTED_WAIT, "the database steps ahead would not finish within the allowed wait",
            Refusal.WAITED, "waited too long for a database thread");

    @Produces
    @Singleton
    @Startup
    @BcryptWork
    Lane bcryptLane(OverloadConfig config, MeterRegistry registry, DeadlineTimer deadlineTimer) {
        return bcrypt(config, registry, deadlineTimer, System::nanoTime);
    }

    @Produces
    @Singleton
    @Startup
    @DatabaseWork
    Lane databaseLane(OverloadConfig config, MeterRegistry registry, DeadlineTimer deadlineTimer,
            @ConfigProperty(name = "quarkus.datasource.jdbc.max-size", defaultValue = "20") int poolMaxSize) {
        OverloadConfig.Database database = config.database();
        return database(database.concurrency().orElse(poolMaxSize), database.maxWait(), database.queue(),
                database.reservedForKnown(), System::nanoTime, deadlineTimer, registry);
    }

    void stopBcrypt(@Disposes @BcryptWork Lane lane) {
        lane.shutdown();
    }

    void stopDatabase(@Disposes @DatabaseWork Lane lane) {
        lane.shutdown();
    }

    /**
     * The bcrypt lane. {@code clock} drives the waiting-time rule (a virtual clock in tests); deadlines keep the real
     * one. Refuses a deadline that cannot hold one cost-10 check ({@link Lane#requireFits}).
     */
    public static Lane bcrypt(OverloadConfig config, MeterRegistry registry, DeadlineTimer deadlineTimer,
            LongSupplier clock) {
        OverloadConfig.Bcrypt bcrypt = config.bcrypt();
        int concurrency = bcrypt.concurrency().orElse(Runtime.getRuntime().availableProcessors());
        if (concurrency < 1) {
            throw new IllegalArgumentException("identity.overload.bcrypt.concurrency must be at least 1");
        }
        long expected = Math.max(1, bcrypt.expectedDuration().toNanos());
        int queue = bcrypt.queue().orElse(derivedQueue(bcrypt.maxWait().toNanos(), expected, concurrency));
        if (queue < 1) {
            throw new IllegalArgumentException("identity.overload.bcrypt.queue must be at least 1");
        }
        StepTime stepTime = new StepTime(expected, 5);
        LongSupplier targetWait = bcrypt.targetWait().isPresent()
                ? () -> bcrypt.targetWait().get().toNanos()
                : () -> TARGET_WAIT_HASHES * stepTime.nanosPerUnit();
        ControlledDelay delay = new ControlledDelay(bcrypt.maxWait().toNanos(), bcrypt.interval().toNanos(),
                targetWait, clock.getAsLong());
        BcryptScheduling scheduling = BcryptScheduling.forThisProcess(bcrypt.idlePriority());
        LaneSettings settings = new LaneSettings("bcrypt", concurrency, queue, config.deadline().toNanos(),
                BCRYPT_SENTENCES, scheduling.onThreadStart(), deadlineTimer);
        WaitingTimeRule.Settings rule = new WaitingTimeRule.Settings(concurrency, queue,
                WaitingTimeRule.Estimate.ALL_IN_LANE, true, false, expected);
        BcryptMeters meters = BcryptMeters.register(registry);
        Lane lane = lane(settings, rule, delay, stepTime, Partitions.none(concurrency), meters, Attribution.AS_IS,
                clock);
        try {
            lane.requireFits(CheckCost.UNIT, "one cost-10 bcrypt check");
        } catch (IllegalArgumentException impossible) {
            lane.shutdown();
            throw impossible;
        }
        scheduling.applyToProcess();
        BcryptMeters.watch(registry, lane, scheduling);
        LOG.infof("bcrypt lane: %d threads (%s), waits up to %s (%s once the queue stands for %s), at most %d"
                + " waiting, deadline %s", concurrency, scheduling.describe(), bcrypt.maxWait(),
                bcrypt.targetWait().map(Object::toString).orElse(TARGET_WAIT_HASHES + " hash times"),
                bcrypt.interval(), queue, config.deadline());
        return lane;
    }

    /**
     * The database lane: {@code maxWait} {@code 0s} means no queue (every thread busy: refused at once);
     * {@code reservedForKnown} the part of the threads only {@link Share#KNOWN} work may use; {@code later} answers the
     * refusals whose cause is not yet clear ({@link DatabaseAttribution}).
     */
    public static Lane database(int concurrency, Duration maxWait, int queue, double reservedForKnown,
            LongSupplier clock, Later later, MeterRegistry registry) {
        long maxWaitNanos = maxWait.toNanos();
        int queueCap = maxWaitNanos > 0 ? Math.max(0, queue) : 0;
        // Validated first: the partitions name the setting a wrong fraction comes from.
        Partitions partitions = Partitions.reserving(Math.max(1, concurrency), reservedForKnown);
        StepTime stepTime = new StepTime(INITIAL_STEP_NANOS, 10);
        // No request deadline: this lane judges a step's deadline only when a thread takes it.
        LaneSettings settings = new LaneSettings("database", concurrency, queueCap, 0, DATABASE_SENTENCES,
                () -> { }, null);
        WaitingTimeRule.Settings rule = new WaitingTimeRule.Settings(concurrency, queueCap,
                WaitingTimeRule.Estimate.MEAN_RELEASE, false, true, INITIAL_STEP_NANOS);
        Lane lane = lane(settings, rule, ControlledDelay.fixed(maxWaitNanos), stepTime, partitions,
                DatabaseMeters.register(registry), new DatabaseAttribution(Math.max(1, concurrency), clock, later), clock);
        DatabaseMeters.watch(registry, lane);
        LOG.infof("database lane: %d threads (%d reserved for known devices), waiting at most %d ms (at most %d"
                + " waiting)", concurrency, partitions.reserved(), TimeUnit.NANOSECONDS.toMillis(maxWaitNanos),
                queueCap);
        return lane;
    }

    private static Lane lane(LaneSettings settings, WaitingTimeRule.Settings ruleSettings, ControlledDelay delay,
            StepTime stepTime, Partitions partitions, LaneListener listener, Attribution attribution,
            LongSupplier clock) {
        Occupancy occupancy = new Occupancy(clock);
        WaitingTimeRule rule = new WaitingTimeRule(ruleSettings, delay, stepTime, occupancy);
        return new Lane(settings, rule, occupancy, stepTime, partitions, listener, attribution, clock);
    }

    /** ceil(max-wait ÷ hash time) × threads: as many as can start within the longest allowance. */
    static int derivedQueue(long maxWaitNanos, long expectedNanos, int concurrency) {
        long perThread = (maxWaitNanos + expectedNanos - 1) / Math.max(1, expectedNanos);
        return (int) Math.max(1, Math.min(100_000, perThread * concurrency));
    }
}
