package io.deviceidentity.loadtest.emqx;

import io.vertx.core.Vertx;

/**
 * Time as the EMQX imitation sees it: a monotonic clock and one-shot timers. The run uses the Vert.x event loop's
 * ({@link #of(Vertx)}); tests use a virtual clock, so the in-time rule can be checked to the millisecond without
 * waiting.
 */
public interface EmqxClock {

    long nanoTime();

    /** Runs {@code task} after {@code delayNanos}; returns an id for {@link #cancel(long)}. */
    long schedule(long delayNanos, Runnable task);

    void cancel(long timerId);

    static EmqxClock of(Vertx vertx) {
        return new EmqxClock() {
            @Override
            public long nanoTime() {
                return System.nanoTime();
            }

            @Override
            public long schedule(long delayNanos, Runnable task) {
                return vertx.setTimer(Math.max(1, (delayNanos + 999_999) / 1_000_000), id -> task.run());
            }

            @Override
            public void cancel(long timerId) {
                vertx.cancelTimer(timerId);
            }
        };
    }
}
