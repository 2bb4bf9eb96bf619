package io.deviceidentity.testsupport.tls;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** scripts/local-ca.sh, the local stacks' own CA tool, driven from a test: a throwaway CA and its leaves. */
final class LocalCa {

    private LocalCa() {
    }

    /** A new CA in {@code dir} (dir/ca.crt). */
    static Path ca(Path dir) throws Exception {
        run("ca", dir.toString());
        return dir.resolve("ca.crt");
    }

    /** A leaf for 127.0.0.1/localhost, signed by dir's CA and valid now. */
    static void issue(Path dir, String name) throws Exception {
        run("issue", dir.toString(), name);
    }

    /** A leaf for 127.0.0.1/localhost, signed by dir's CA, whose validity ended yesterday. */
    static void expired(Path dir, String name) throws Exception {
        run("expired", dir.toString(), name);
    }

    static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    /** As root, the database processes run as 'postgres', which must read their keys (and only it: mode 600). */
    static void handToDatabaseUser(Path dir) throws Exception {
        if (isRoot()) {
            exec(List.of("chown", "-R", "postgres:", dir.toString()));
            exec(List.of("chmod", "755", dir.toString()));
        }
    }

    private static void run(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("bash",
                Path.of(System.getProperty("stack.script", "../scripts/stack.sh")).resolveSibling("local-ca.sh").toString()));
        command.addAll(List.of(args));
        exec(command);
    }

    private static void exec(List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IllegalStateException(command + " failed: " + output);
        }
    }
}
