package io.deviceidentity.overload;

import java.util.concurrent.atomic.AtomicInteger;

import org.jboss.logging.Logger;

/**
 * Moves the calling thread to Linux's {@code SCHED_IDLE} policy: it runs only when no normal thread of the machine
 * (or of the container's CPU quota) wants the CPU. The bcrypt threads call it when they start, so that on a pod
 * with one CPU the event loop that writes every answer, and every 503 refusal, is never queued behind a hash.
 *
 * <p>Why this and not a lower nice value: a nice-19 thread still gets about 1.5 % of a CPU against a nice-0 one and
 * waits for its time slice to end before a woken event loop runs; {@code SCHED_IDLE} yields at once. A thread may
 * move itself there without any privilege ({@code sched_setscheduler(2)}: "switching to SCHED_IDLE is always
 * allowed"), and the JDK has no API for it, hence {@link LinuxCalls} (JNA on the JVM, GraalVM's C interface in a
 * native image). Success means the kernel reports the policy back ({@code sched_getscheduler}), not only that the
 * call returned 0. Where the move is impossible (not Linux, a call that fails) it returns false, logs one line and
 * counts the thread in {@link #failures()}, which the services export as a metric: the priority of refusals over
 * hashing is then gone, and that must show.
 */
public final class IdleScheduling {

    private static final Logger LOG = Logger.getLogger(IdleScheduling.class);
    /** {@code SCHED_IDLE} in linux/sched.h. */
    static final int SCHED_IDLE = 5;

    private static final AtomicInteger FAILURES = new AtomicInteger();

    private IdleScheduling() {
    }

    /** Puts the calling thread under {@code SCHED_IDLE}; false (one log line, one failure counted) when not possible. */
    public static boolean applyToCurrentThread() {
        if (!System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux")) {
            return false;
        }
        try {
            // pid 0 = the calling thread (Linux schedules threads, and this call acts on one).
            LinuxCalls.LibC libc = LinuxCalls.libc();
            if (libc.sched_setscheduler(0, SCHED_IDLE, new int[] {0}) != 0) {
                LOG.warnf("sched_setscheduler(SCHED_IDLE) failed (errno %d): bcrypt runs at normal priority",
                        LinuxCalls.lastError());
            } else {
                int policy = libc.sched_getscheduler(0);
                if (policy == SCHED_IDLE) {
                    return true;
                }
                LOG.warnf("sched_setscheduler(SCHED_IDLE) returned 0 but the thread's policy reads %d: "
                        + "bcrypt runs at normal priority", policy);
            }
        } catch (LinkageError | RuntimeException unavailable) {
            LOG.warnf("SCHED_IDLE is not available here (%s): bcrypt runs at normal priority", unavailable);
        }
        FAILURES.incrementAndGet();
        return false;
    }

    /** Threads of this process that asked for {@code SCHED_IDLE} and did not get it. */
    public static int failures() {
        return FAILURES.get();
    }
}
