package io.deviceidentity.overload;

import java.sql.SQLException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The threads of a {@link Lane} and what happens on them: a step a thread takes is judged once more by the policy
 * ({@link WaitingTimeRule#atStart}), run, measured into the {@link StepTime} estimate (a request's step only: a bulk
 * step's time is kept out) and its thread released <em>before</em> its answer is completed: completing runs the
 * caller's continuations (the decision, the answer) on this thread, which are neither the step's time nor a busy lane
 * thread. One thread per place that can run at once: a lane exists to bound them.
 */
final class LaneThreads {

    private final WaitingTimeRule rule;
    private final Occupancy occupancy;
    private final StepTime stepTime;
    private final LaneListener listener;
    private final Attribution attribution;
    private final LaneSettings settings;
    private final LongSupplier clock;
    private final ThreadPoolExecutor executor;

    LaneThreads(LaneSettings settings, WaitingTimeRule rule, Occupancy occupancy, StepTime stepTime,
            LaneListener listener, Attribution attribution, LongSupplier clock) {
        this.settings = settings;
        this.rule = rule;
        this.occupancy = occupancy;
        this.stepTime = stepTime;
        this.listener = listener;
        this.attribution = attribution;
        this.clock = clock;
        // A step enters the executor's queue only with a place in the lane, so the queue never refuses while the
        // service runs. (A SynchronousQueue would refuse spuriously while a thread that just finished is not polling.)
        this.executor = new ThreadPoolExecutor(settings.concurrency(), settings.concurrency(), 0,
                TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(settings.concurrency() + settings.queueCapacity()),
                ServiceThreads.named(settings.name(), settings.onThreadStart()));
        executor.prestartAllCoreThreads();
    }

    /** Runs admitted work (its place taken); {@code deadline} and {@code admission} null for a bulk step. */
    <T> CompletableFuture<T> execute(Deadline deadline, Share share, WaitingTimeRule.Admission admission,
            long ticks, long queuedAt, Lane.Step<T> step) {
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            executor.execute(() -> runOnThread(deadline, share, admission, ticks, queuedAt, step, result));
        } catch (RejectedExecutionException shutDown) {
            occupancy.abandoned(ticks);
            return CompletableFuture.failedFuture(ServiceUnavailableException.overload("the service is stopping"));
        }
        return result;
    }

    private <T> void runOnThread(Deadline deadline, Share share, WaitingTimeRule.Admission admission, long ticks,
            long queuedAt, Lane.Step<T> step, CompletableFuture<T> result) {
        boolean forRequest = deadline != null;
        long startedAt = clock.getAsLong();
        occupancy.started(startedAt);
        if (forRequest) {
            long waited = startedAt - queuedAt;
            listener.waited(waited);
            Refusal refusal = rule.atStart(admission, waited, deadline, ticks);
            if (refusal != null) {
                // Nobody will read this answer, or its promise was broken: skipped without running.
                occupancy.finished(ticks, clock.getAsLong());
                listener.refused(share, refusal);
                attribution.tell(settings.refusal(refusal))
                        .whenComplete((never, told) -> result.completeExceptionally(told));
                return;
            }
        }
        T value = null;
        Throwable failure = null;
        try {
            if (forRequest) {
                attribution.started(startedAt);
            }
            value = step.run();
        } catch (SQLException | RuntimeException | Error thrown) {
            failure = attribution.failed(thrown, forRequest);
        } finally {
            long finished = clock.getAsLong();
            occupancy.finished(ticks, finished);
            if (forRequest) {
                stepTime.measured(finished - startedAt, ticks);
                listener.ran(finished - startedAt, deadline.hasPassed());
            }
        }
        if (forRequest && failure == null) {
            // Told after leaving the lane, so that of steps finishing together the last one sees them all gone.
            // Drained: another thread idle besides this one (a lane of one: nothing waiting behind this step).
            attribution.succeeded(occupancy.inLane() <= settings.concurrency() - Math.min(2, settings.concurrency()));
        }
        if (failure == null) {
            result.complete(value);
        } else {
            result.completeExceptionally(failure);
        }
    }

    void shutdown() {
        executor.shutdownNow();
    }
}
