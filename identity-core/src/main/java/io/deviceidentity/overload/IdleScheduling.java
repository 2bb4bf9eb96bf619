package io.deviceidentity.overload;

import org.jboss.logging.Logger;

import com.sun.jna.Native;

/**
 * Moves the calling thread to Linux's {@code SCHED_IDLE} policy: it runs only when no normal thread of the machine
 * (or of the container's CPU quota) wants the CPU. The bcrypt threads call it when they start, so that on a pod
 * with one CPU the event loop that writes every answer, and every 503 refusal, is never queued behind a hash.
 *
 * <p>Why this and not a lower nice value: a nice-19 thread still gets about 1.5 % of a CPU against a nice-0 one and
 * waits for its time slice to end before a woken event loop runs; {@code SCHED_IDLE} yields at once. A thread may
 * move itself there without any privilege ({@code sched_setscheduler(2)}: "switching to SCHED_IDLE is always
 * allowed"), and the JDK has no API for it, hence JNA. Where the call is impossible (not Linux, a native image
 * without JNA's JNI registration) it returns false and the thread keeps the normal policy.
 */
public final class IdleScheduling {

    private static final Logger LOG = Logger.getLogger(IdleScheduling.class);
    /** {@code SCHED_IDLE} in linux/sched.h. */
    static final int SCHED_IDLE = 5;

    private IdleScheduling() {
    }

    /** Puts the calling thread under {@code SCHED_IDLE}; false (and one log line) when that is not possible. */
    public static boolean applyToCurrentThread() {
        if (!System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux")) {
            return false;
        }
        try {
            // pid 0 = the calling thread (Linux schedules threads, and this call acts on one).
            if (LinuxCalls.libc().sched_setscheduler(0, SCHED_IDLE, new int[] {0}) == 0) {
                return true;
            }
            LOG.warnf("sched_setscheduler(SCHED_IDLE) failed (errno %d): bcrypt runs at normal priority",
                    Native.getLastError());
        } catch (LinkageError | RuntimeException unavailable) {
            LOG.warnf("SCHED_IDLE is not available here (%s): bcrypt runs at normal priority", unavailable);
        }
        return false;
    }
}
