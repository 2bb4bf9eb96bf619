package io.deviceidentity.overload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** Reads the kernel's own record of a thread's scheduling policy ({@code /proc/thread-self/stat}, field 41). */
class IdleSchedulingTest {

    private static final int SCHED_OTHER = 0;

    @Test
    void aThreadThatAsksRunsUnderSchedIdleAndOthersAreUntouched() throws Exception {
        assumeTrue(Files.exists(Path.of("/proc/thread-self/stat")), "Linux only");

        int[] policies = onNewThread(() -> {
            int before = currentPolicy();
            boolean applied = IdleScheduling.applyToCurrentThread();
            return new int[] {before, applied ? 1 : 0, currentPolicy()};
        });

        assertEquals(SCHED_OTHER, policies[0]);
        assertEquals(1, policies[1], "sched_setscheduler(SCHED_IDLE) succeeded");
        assertEquals(IdleScheduling.SCHED_IDLE, policies[2]);
        assertEquals(SCHED_OTHER, currentPolicy(), "the calling thread only");
    }

    /** Field 41 of /proc/[tid]/stat is the policy; fields are counted after the ")" that ends the name (field 2). */
    static int currentPolicy() {
        try {
            String stat = Files.readString(Path.of("/proc/thread-self/stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Integer.parseInt(fields[41 - 3]);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static <T> T onNewThread(java.util.function.Supplier<T> work) throws Exception {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread thread = new Thread(() -> result.complete(work.get()));
        thread.start();
        // Once under SCHED_IDLE the thread runs only when a core is otherwise idle: on a saturated machine that can
        // take long. The bound is a hang guard, not a limit of anything under test.
        T value = result.get(2, TimeUnit.MINUTES);
        thread.join();
        assertTrue(value != null);
        return value;
    }
}
