package io.deviceidentity.overload;

/**
 * Runs a task once, after a delay: how the database lane answers a refusal whose cause is not yet clear
 * ({@link DatabaseAttribution}). {@link DeadlineTimer} in the services; the tests run the tasks on their own clock.
 */
@FunctionalInterface
public interface Later {

    void after(long nanos, Runnable task);
}
