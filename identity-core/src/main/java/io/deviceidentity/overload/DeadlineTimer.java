package io.deviceidentity.overload;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Completes work with {@code deadline} the moment its request's deadline passes, whatever the work is still doing,
 * so that no answer outlives its caller; and answers the database lane's refusals whose cause is not yet clear
 * ({@link Later}). One thread of its own (not the JDK's shared delayer), carrying the
 * application's class loader, because the answer is written from it.
 */
@ApplicationScoped
public class DeadlineTimer implements Later {

    private final ScheduledThreadPoolExecutor timer;

    public DeadlineTimer() {
        this.timer = new ScheduledThreadPoolExecutor(1, ServiceThreads.named("request-deadline"));
        timer.setRemoveOnCancelPolicy(true);
    }

    /** {@code work}, or a {@link ServiceUnavailableException} {@code deadline} if it is not done by the deadline. */
    public <T> CompletableFuture<T> bound(Deadline deadline, CompletableFuture<T> work) {
        return bound(deadline, work, ServiceUnavailableException::deadline);
    }

    /**
     * {@code work}, or the failure {@code expired} names at the moment the deadline passes if it is not done by then
     * (what kept the request: {@link Lane#expired}).
     */
    public <T> CompletableFuture<T> bound(Deadline deadline, CompletableFuture<T> work,
            Supplier<ServiceUnavailableException> expired) {
        if (work.isDone()) {
            // Decided already (a refusal, a denial, the fast path): in a storm nearly every answer. Scheduling and
            // cancelling a timer for it would wake the timer thread, CPU a pod of a fraction of a core takes from bcrypt.
            return work;
        }
        CompletableFuture<T> answer = new CompletableFuture<>();
        ScheduledFuture<?> expiry = timer.schedule(() -> answer.completeExceptionally(expired.get()),
                Math.max(1, deadline.remainingNanos()), TimeUnit.NANOSECONDS);
        work.whenComplete((value, failure) -> {
            expiry.cancel(false);
            if (failure == null) {
                answer.complete(value);
            } else {
                answer.completeExceptionally(failure);
            }
        });
        return answer;
    }

    /** Runs {@code task} on this timer's thread {@code nanos} from now. */
    @Override
    public void after(long nanos, Runnable task) {
        timer.schedule(task, Math.max(1, nanos), TimeUnit.NANOSECONDS);
    }

    /** Timers scheduled and not yet fired or cancelled (for tests). */
    int pending() {
        return timer.getQueue().size();
    }

    @PreDestroy
    void shutdown() {
        timer.shutdownNow();
    }
}
