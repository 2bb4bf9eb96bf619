package io.deviceidentity.buildchecks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * scripts/thread-cpu.py, which make bench runs around each pod point to say where the pod's CPU went: read
 * from a recorded /proc tree of a JVM's threads (names with spaces and parentheses included, as Linux writes them),
 * it groups the threads and divides by the answers.
 */
class ThreadCpuScriptTest {

    @Test
    void groupsAJvmsThreadsByNameAndGivesTheCpuPerAnswer(@TempDir Path dir) throws Exception {
        Path before = snapshot(dir, "before", 100, 40, 10, 300);
        Path after = snapshot(dir, "after", 600, 140, 60, 500);

        String printed = run("diff", before.toString(), after.toString(), "1000");

        // Clock ticks (CLK_TCK 100 on Linux): bcrypt +5 s, event loop +1 s, database +0.5 s, JIT +2 s.
        assertTrue(printed.contains(line("bcrypt", "5.00", "5000")), printed);
        assertTrue(printed.contains(line("event loop", "1.00", "1000")), printed);
        assertTrue(printed.contains(line("database", "0.50", "500")), printed);
        assertTrue(printed.contains(line("JIT", "2.00", "2000")), printed);
        assertTrue(printed.contains(line("all but bcrypt", "3.50", "3500")), printed);
        assertTrue(printed.contains("answers: 1000"), printed);
    }

    /** A native image names its threads by the last 15 characters of the Java name, not the first. */
    @Test
    void aNativeImagesEventLoopThreadsAreTheEventLoop(@TempDir Path dir) throws Exception {
        Path raw = Files.writeString(dir.resolve("snap.stat"), """
                thread 1 (bcrypt-1) S 1 1 1 0 -1 0 0 0 0 0 100 0 0 0 20 0
                thread 2 (ntloop-thread-0) S 1 1 1 0 -1 0 0 0 0 0 30 5 0 0 20 0
                thread 3 (tloop-thread-11) S 1 1 1 0 -1 0 0 0 0 0 10 0 0 0 20 0
                thread 4 (database-10) S 1 1 1 0 -1 0 0 0 0 0 7 0 0 0 20 0
                """);
        Path out = dir.resolve("snap.json");
        run("read", raw.toString(), out.toString());
        String json = Files.readString(out);
        assertTrue(json.contains("\"event loop\": 45"), json);
        assertTrue(json.contains("\"database\": 7"), json);
        assertTrue(!json.contains("\"other\""), json);
    }

    @Test
    void aSnapshotHoldsTheWholeProcessesCpuWithItsEndedThreads(@TempDir Path dir) throws Exception {
        Path proc = dir.resolve("proc");
        task(proc, 1, "bcrypt-1", 100);
        // The process's own utime + stime (400 + 23) include threads that have ended since: more than its threads' sum.
        Files.writeString(proc.resolve("4242/stat"), "4242 (java) S 1 1 1 0 -1 0 0 0 0 0 400 23 0 0 20 0\n");
        Path out = dir.resolve("snap.json");
        run("snap", "4242", out.toString(), "--proc", proc.toString());
        String json = Files.readString(out);
        assertTrue(json.contains("\"process\": 423"), json);
        assertTrue(json.contains("\"bcrypt\": 100"), json);
    }

    /** The answer floor's figure: a JVM's compiler threads end between the snapshots, and only the process has them. */
    @Test
    void theWholeProcessPerAnswerCountsThreadsThatEndedBetweenTheSnapshots(@TempDir Path dir) throws Exception {
        Path before = dir.resolve("before.json");
        Path after = dir.resolve("after.json");
        run("read", Files.writeString(dir.resolve("before.stat"), """
                process 4242 (java) S 1 1 1 0 -1 0 0 0 0 0 400 100 0 0 20 0
                thread 2 (vert.x-eventloo) S 1 1 1 0 -1 0 0 0 0 0 300 0 0 0 20 0
                thread 3 (C2 CompilerThre) S 1 1 1 0 -1 0 0 0 0 0 150 0 0 0 20 0
                """).toString(), before.toString());
        run("read", Files.writeString(dir.resolve("after.stat"), """
                process 4242 (java) S 1 1 1 0 -1 0 0 0 0 0 700 200 0 0 20 0
                thread 2 (vert.x-eventloo) S 1 1 1 0 -1 0 0 0 0 0 500 0 0 0 20 0
                """).toString(), after.toString());

        String printed = run("diff", before.toString(), after.toString(), "1000");

        // The event loop +2 s; the process +4 s, of which the compiler thread's last 2 s left with the thread.
        assertTrue(printed.contains(line("event loop", "2.00", "2000")), printed);
        assertTrue(printed.contains(line("process", "4.00", "4000")), printed);
    }

    /** bench-pods.sh's cpu_snap copies the stat lines with bash builtins during a storm; they are read afterwards. */
    @Test
    void rawStatLinesCopiedDuringAStormGiveTheSameSnapshot(@TempDir Path dir) throws Exception {
        Path raw = Files.writeString(dir.resolve("snap.stat"), """
                process 4242 (java) S 1 1 1 0 -1 0 0 0 0 0 400 23 0 0 20 0
                thread 1 (bcrypt-1) S 1 1 1 0 -1 0 0 0 0 0 100 0 0 0 20 0
                thread 2 (C2 CompilerThre) S 1 1 1 0 -1 0 0 0 0 0 30 5 0 0 20 0
                thread 3 (pool-1 (thread)) S 1 1 1 0 -1 0 0 0 0 0 7 0 0 0 20 0
                """);
        Path out = dir.resolve("snap.json");
        run("read", raw.toString(), out.toString());
        String json = Files.readString(out);
        assertTrue(json.contains("\"process\": 423"), json);
        assertTrue(json.contains("\"bcrypt\": 100"), json);
        assertTrue(json.contains("\"JIT\": 35"), json);
        assertTrue(json.contains("\"other\": 7"), json);
    }

    @Test
    void withoutArgumentsItSaysHowToUseItAndFails() throws Exception {
        Process process = new ProcessBuilder("python3", "scripts/thread-cpu.py").directory(Repo.ROOT.toFile())
                .redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS));
        assertEquals(2, process.exitValue(), output);
        assertTrue(output.contains("thread-cpu.py snap PID OUT.json"), output);
    }

    private static String line(String group, String seconds, String perAnswer) {
        return String.format("%-11s %9s %16s", group, seconds, perAnswer);
    }

    /** A /proc/4242/task tree with one thread per group, each with utime = ticks and stime = 0, snapped to JSON. */
    private static Path snapshot(Path dir, String name, int bcrypt, int eventLoop, int database, int jit) throws Exception {
        Path proc = dir.resolve(name + "-proc");
        task(proc, 1, "bcrypt-1", bcrypt);
        task(proc, 2, "vert.x-eventloo", eventLoop);
        task(proc, 3, "database-1", database);
        task(proc, 4, "C2 CompilerThre", jit);
        task(proc, 5, "pool-1 (thread)", 7);
        Path out = dir.resolve(name + ".json");
        run("snap", "4242", out.toString(), "--proc", proc.toString());
        return out;
    }

    private static void task(Path proc, int tid, String comm, int utime) throws Exception {
        Path task = Files.createDirectories(proc.resolve("4242/task/" + tid));
        Files.writeString(task.resolve("comm"), comm + "\n");
        // Fields after the name: state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime ...
        Files.writeString(task.resolve("stat"), tid + " (" + comm + ") S 1 1 1 0 -1 0 0 0 0 0 " + utime + " 0 0 0 20 0\n");
    }

    private static String run(String... args) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of("python3", "scripts/thread-cpu.py"));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).directory(Repo.ROOT.toFile()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), String.join(" ", command) + " did not finish");
        assertEquals(0, process.exitValue(), output);
        return output;
    }
}
