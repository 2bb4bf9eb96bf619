package io.deviceidentity.overload;

import org.graalvm.nativeimage.StackValue;
import org.graalvm.nativeimage.c.function.CFunction;
import org.graalvm.nativeimage.c.type.CIntPointer;

/**
 * {@link LinuxCalls.LibC} in a native image: GraalVM's C interface binds these methods to the C library the
 * executable links anyway, at build time, without JNI or JNA. Only ever used when {@link LinuxCalls#inNativeImage()};
 * on the JVM the class is never initialised (its GraalVM types are not even on the classpath there).
 *
 * <p>The calls return at once (no blocking system call), so they run without a transition out of Java state, which
 * also keeps the thread's {@code errno} intact for {@link #errno()} right after a failed call.
 */
final class NativeImageLibC implements LinuxCalls.LibC {

    static final NativeImageLibC INSTANCE = new NativeImageLibC();

    private NativeImageLibC() {
    }

    @Override
    public int sched_setscheduler(int pid, int policy, int[] param) {
        CIntPointer schedParam = StackValue.get(CIntPointer.class);
        schedParam.write(param[0]);
        return Native.sched_setscheduler(pid, policy, schedParam);
    }

    @Override
    public int sched_getscheduler(int pid) {
        return Native.sched_getscheduler(pid);
    }

    @Override
    public int setpriority(int which, int who, int prio) {
        return Native.setpriority(which, who, prio);
    }

    static int errno() {
        return Native.__errno_location().read();
    }

    /** The C functions themselves (glibc), as the builder links them. */
    private static final class Native {

        @CFunction(transition = CFunction.Transition.NO_TRANSITION)
        static native int sched_setscheduler(int pid, int policy, CIntPointer param);

        @CFunction(transition = CFunction.Transition.NO_TRANSITION)
        static native int sched_getscheduler(int pid);

        @CFunction(transition = CFunction.Transition.NO_TRANSITION)
        static native int setpriority(int which, int who, int prio);

        @CFunction(transition = CFunction.Transition.NO_TRANSITION)
        static native CIntPointer __errno_location();
    }
}
