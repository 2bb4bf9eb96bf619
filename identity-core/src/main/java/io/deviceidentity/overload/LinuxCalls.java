package io.deviceidentity.overload;

import com.sun.jna.Library;
import com.sun.jna.Native;

/**
 * The C library calls the overload package makes on Linux, which the JDK has no API for: moving a thread to another
 * scheduling policy and reading it back ({@link IdleScheduling}), and changing a thread's nice value
 * ({@link CompilerThreads}). On the JVM they go through JNA, loaded on first use, so that a platform without them
 * fails only the caller that asked, with a {@link LinkageError} it handles. In a native image JNA's proxies do not
 * work (its JNI stubs are not registered), so there the same calls are GraalVM C-interface functions linked into the
 * executable ({@link NativeImageLibC}), chosen at run time.
 */
final class LinuxCalls {

    private LinuxCalls() {
    }

    /** {@code param} stands for {@code struct sched_param { int sched_priority; }}. */
    interface LibC extends Library {
        int sched_setscheduler(int pid, int policy, int[] param);

        int sched_getscheduler(int pid);

        int setpriority(int which, int who, int prio);
    }

    private static final class Holder {
        static final LibC LIBC = Native.load("c", LibC.class);
    }

    static LibC libc() {
        return inNativeImage() ? NativeImageLibC.INSTANCE : Holder.LIBC;
    }

    /** The {@code errno} the calling thread's last failed call of {@link #libc()} left. */
    static int lastError() {
        return inNativeImage() ? NativeImageLibC.errno() : Native.getLastError();
    }

    /**
     * Whether this is a native executable running (GraalVM's {@code ImageInfo.inImageRuntimeCode()}, read from the
     * property it reads, since its class is absent on the JVM). Read per call, never kept in a static field: the
     * class is initialised while the image is built, when the answer is "buildtime".
     */
    static boolean inNativeImage() {
        return "runtime".equals(System.getProperty("org.graalvm.nativeimage.imagecode"));
    }
}
