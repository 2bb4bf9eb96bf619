package io.deviceidentity.overload;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Threads of the service's own executors: daemons named {@code <prefix>-<n>}, carrying the application's class loader
 * (answers are completed on them, and building a response needs it), each running {@code onStart} first.
 */
final class ServiceThreads {

    private ServiceThreads() {
    }

    static ThreadFactory named(String prefix, Runnable onStart) {
        AtomicInteger number = new AtomicInteger();
        ClassLoader application = Thread.currentThread().getContextClassLoader();
        return runnable -> {
            Thread thread = new Thread(() -> {
                onStart.run();
                runnable.run();
            }, prefix + "-" + number.incrementAndGet());
            thread.setDaemon(true);
            thread.setContextClassLoader(application);
            return thread;
        };
    }

    static ThreadFactory named(String prefix) {
        return named(prefix, () -> { });
    }
}
