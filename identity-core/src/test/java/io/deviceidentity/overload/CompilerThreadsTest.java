package io.deviceidentity.overload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;

/**
 * Threads are found by their Linux names and moved to nice 19 with the real system call, and no other thread is.
 * The test renices a thread of its own rather than this JVM's JIT, which the rest of the suite still needs at full
 * speed on a busy machine.
 */
class CompilerThreadsTest {

    @Test
    void theNamedThreadsOfThisProcessAreMovedToNice19AndNoOtherThread() throws Exception {
        CountDownLatch stop = new CountDownLatch(1);
        Thread own = new Thread(() -> {
            try {
                stop.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "renice-me");
        own.start();
        try {
            // The thread names itself to Linux once it runs.
            for (int i = 0; i < 1000 && !niceByName().containsKey("renice-me"); i++) {
                Thread.sleep(10);
            }
            Map<String, Integer> before = niceByName();
            int moved = CompilerThreads.renice("renice-me"::equals);

            assertEquals(1, moved);
            Map<String, Integer> after = niceByName();
            // The thread starts at the nice value the build runs under (0, or more under `nice mvn`).
            assertTrue(before.get("renice-me") < CompilerThreads.NICE, "the test thread started below nice 19");
            assertEquals(CompilerThreads.NICE, after.remove("renice-me"));
            before.remove("renice-me");
            after.keySet().retainAll(before.keySet());
            before.keySet().retainAll(after.keySet());
            assertEquals(before, after, "every other thread keeps its priority");
        } finally {
            stop.countDown();
            own.join();
        }
    }

    @Test
    void hotSpotsCompilerThreadsAreRecognisedByTheNamesLinuxKeeps() {
        // HotSpot names them "C1 CompilerThread0", "C2 CompilerThread1"; Linux keeps 15 characters.
        assertTrue(CompilerThreads.isCompilerThread("C1 CompilerThre"));
        assertTrue(CompilerThreads.isCompilerThread("C2 CompilerThre"));
        assertFalse(CompilerThreads.isCompilerThread("bcrypt-1"));
        assertFalse(CompilerThreads.isCompilerThread("vert.x-eventloo"));
        assertTrue(niceByName().containsKey("C2 CompilerThre"), "this JVM's own compiler thread has that name");
    }

    private static Map<String, Integer> niceByName() {
        Map<String, Integer> nice = new HashMap<>();
        try (var tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                String stat;
                String comm;
                try {
                    stat = Files.readString(task.resolve("stat"));
                    comm = Files.readString(task.resolve("comm")).strip();
                } catch (java.nio.file.NoSuchFileException exited) {
                    continue; // ended after the listing (a busy machine's test JVM starts and ends threads)
                }
                // The fields after the parenthesised name: state is the first, nice the seventeenth.
                nice.put(comm, Integer.parseInt(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[16]));
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return nice;
    }
}
