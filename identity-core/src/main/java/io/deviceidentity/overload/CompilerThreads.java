package io.deviceidentity.overload;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.function.Predicate;

import org.jboss.logging.Logger;

/**
 * Moves the JIT's compiler threads of this JVM to nice 19, so that inside a CPU quota below one CPU they take the
 * quota only when bcrypt and the answers do not want it. Measured at 0.25 vCPU (docs/overload.md): the JIT took 41 %
 * of the pod's CPU during the first storm after readiness, and the pod held 0.35 of its capacity; with the compiler
 * threads at nice 19 it held 0.63-0.74. With a whole CPU the same setting left the request path half-compiled for the
 * whole storm (0.62-0.78 instead of 0.89-0.90), so {@link BcryptScheduling} applies it only below one CPU.
 *
 * <p>The threads are found by the names HotSpot gives them ({@code C1 CompilerThread0}, {@code C2 CompilerThread0},
 * cut to 15 characters by Linux); up to three CPUs HotSpot runs one of each and never stops the first of a kind, so
 * renicing them once at start holds. A native image has no such threads: nothing to do. Raising a thread's nice value
 * ({@code setpriority(2)} on its thread id) needs no privilege.
 */
public final class CompilerThreads {

    private static final Logger LOG = Logger.getLogger(CompilerThreads.class);
    static final int NICE = 19;
    private static final int PRIO_PROCESS = 0;

    private CompilerThreads() {
    }

    /** Renices every compiler thread of this process; returns how many were moved (0 where impossible). */
    public static int deprioritise() {
        return renice(CompilerThreads::isCompilerThread);
    }

    /** Moves the threads of this process whose Linux name {@code names} accepts to nice {@value #NICE}. */
    static int renice(Predicate<String> names) {
        int moved = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                int tid = Integer.parseInt(task.getFileName().toString());
                String name;
                try {
                    name = Files.readString(task.resolve("comm")).strip();
                } catch (NoSuchFileException exited) {
                    // A thread that ended after the listing: skip it, the others still need moving.
                    continue;
                }
                if (names.test(name) && LinuxCalls.libc().setpriority(PRIO_PROCESS, tid, NICE) == 0) {
                    moved++;
                }
            }
        } catch (IOException | LinkageError | RuntimeException unavailable) {
            LOG.warnf("could not lower the JIT compiler threads' priority (%s)", unavailable);
        }
        return moved;
    }

    static boolean isCompilerThread(String name) {
        return name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre");
    }
}
