package io.deviceidentity.overload;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import io.smallrye.mutiny.infrastructure.Infrastructure;

import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * Gives every request its deadline, counted from the moment Vert.x routes it (before its body is read and before
 * it waits for a worker thread), so time spent queueing anywhere in the service counts against it; and runs a
 * request's blocking work so that its answer is ready by the deadline whatever the database does.
 */
@ApplicationScoped
public class RequestDeadlines {

    private static final String ARRIVAL = "io.deviceidentity.arrival-nanos";

    private final OverloadConfig config;
    private final DeadlineTimer timer;

    public RequestDeadlines(OverloadConfig config, DeadlineTimer timer) {
        this.config = config;
        this.timer = timer;
    }

    void stampArrival(@Observes Router router) {
        router.route().order(Integer.MIN_VALUE).handler(context -> {
            context.put(ARRIVAL, System.nanoTime());
            context.next();
        });
    }

    public Deadline of(RoutingContext context) {
        Long arrival = context == null ? null : context.get(ARRIVAL);
        return Deadline.after(arrival == null ? System.nanoTime() : arrival, config.deadline());
    }

    /**
     * Runs blocking work (database access, then whatever asynchronous work it starts) on the worker pool. The result
     * fails with {@code deadline} when the deadline passes first, even if a query or a pool wait is still going on;
     * work that only gets a thread after its deadline is not started.
     */
    public <T> CompletableFuture<T> blocking(Deadline deadline, Supplier<? extends CompletionStage<T>> work) {
        return timer.bound(deadline, startingBefore(deadline, work));
    }

    /**
     * Runs blocking work on the worker pool if it gets a thread before its deadline ({@code deadline} otherwise), and
     * then waits for its own result: for writes, whose outcome must be answered once they have begun.
     */
    public <T> CompletableFuture<T> startingBefore(Deadline deadline, Supplier<? extends CompletionStage<T>> work) {
        return CompletableFuture
                .supplyAsync(() -> {
                    deadline.check();
                    return work.get();
                }, Infrastructure.getDefaultWorkerPool())
                .thenCompose(stage -> stage);
    }
}
