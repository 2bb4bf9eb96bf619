package io.deviceidentity.overload;

import com.sun.jna.Library;
import com.sun.jna.Native;

/**
 * The two C library calls the overload package makes on Linux, which the JDK has no API for: moving a thread to
 * another scheduling policy ({@link IdleScheduling}) and changing a thread's nice value ({@link CompilerThreads}).
 * Loaded on first use, so that a platform without them fails only the caller that asked, with a {@link LinkageError}
 * it handles.
 */
final class LinuxCalls {

    private LinuxCalls() {
    }

    /** {@code param} stands for {@code struct sched_param { int sched_priority; }}. */
    interface LibC extends Library {
        int sched_setscheduler(int pid, int policy, int[] param);

        int setpriority(int which, int who, int prio);
    }

    private static final class Holder {
        static final LibC LIBC = Native.load("c", LibC.class);
    }

    static LibC libc() {
        return Holder.LIBC;
    }
}
