package io.deviceidentity.buildchecks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The install scripts' own logic as a non-root user (a GitHub runner's) and as root, run for real by bash. apt-get
 * cannot really run without root, and this test must not install anything, so `id -u`, `sudo`, `apt-get` and
 * `useradd` are stand-ins on PATH that record how they were called; every other command is the machine's own, and
 * the programs the scripts look for (pgbouncer, psql, mosquitto, jq, python3, curl, stress-ng, openssl) are left off
 * PATH so that each script finds them missing. What is proven: with passwordless sudo, every apt-get runs through `sudo -n`
 * (never a prompt) and installs what make test needs; without sudo, or when sudo wants a password, nothing is run and
 * the script names the exact command; as root, apt-get runs directly and sudo is never asked.
 */
class InstallScriptsTest {

    /** The programs the install scripts check for; hidden so that each is "missing". */
    private static final Set<String> HIDDEN = Set.of("pgbouncer", "psql", "mosquitto", "jq", "python3", "curl",
            "stress-ng", "openssl", "patroni", "etcd", "haproxy", "sudo", "apt-get", "id", "useradd");

    private static final String FAKE_ID = """
            #!/bin/sh
            if [ "$1" = -u ]; then echo "$FAKE_UID"; exit 0; fi
            exec /usr/bin/id "$@"
            """;
    /** Passwordless sudo, or one that wants a password (sudo -n then fails, as the real one does). */
    private static final String FAKE_SUDO = """
            #!/bin/sh
            echo "sudo $*" >>"$CALLS"
            [ "$1" = -n ] || { echo "sudo: a terminal is required" >&2; exit 1; }
            shift
            [ "$FAKE_SUDO_NEEDS_PASSWORD" = 1 ] && { echo "sudo: a password is required" >&2; exit 1; }
            SUDO_USER=runner FAKE_UID=0 exec "$@"
            """;
    private static final String FAKE_APT_GET = """
            #!/bin/sh
            echo "apt-get(uid $FAKE_UID${SUDO_USER:+, via sudo}${DEBIAN_FRONTEND:+, $DEBIAN_FRONTEND}) $*" >>"$CALLS"
            """;
    private static final String FAKE_USERADD = """
            #!/bin/sh
            echo "useradd $*" >>"$CALLS"
            """;

    @TempDir
    Path work;

    @Test
    void asANonRootUserWithPasswordlessSudoEveryAptGetRunsThroughSudoAndInstallsWhatMakeTestNeeds() throws Exception {
        Result result = run(true, false, "1001", "scripts/install.sh");

        assertEquals(0, result.exit, result.output);
        List<String> aptGets = result.calls.stream().filter(call -> call.startsWith("apt-get")).toList();
        assertTrue(aptGets.size() >= 2, result.toString());
        for (String call : aptGets) {
            assertTrue(call.startsWith("apt-get(uid 0, via sudo"), "apt-get not through sudo: " + call);
        }
        assertTrue(result.calls.stream().filter(call -> call.startsWith("sudo ")).allMatch(call -> call.startsWith("sudo -n ")),
                "sudo must never prompt: " + result.calls);
        List<String> installs = aptGets.stream().filter(call -> call.contains(" install ")).toList();
        Set<String> installed = new TreeSet<>();
        for (String install : installs) {
            assertTrue(install.contains("noninteractive") && install.contains(" install -y "), "apt-get may ask: " + install);
            installed.addAll(List.of(install.substring(install.indexOf(" install ") + " install ".length()).split("\\s+")));
        }
        assertTrue(installed.containsAll(List.of("pgbouncer", "postgresql", "postgresql-client", "mosquitto", "jq",
                "python3", "curl", "stress-ng", "openssl", "patroni", "etcd-server", "haproxy")), installed.toString());
        assertTrue(result.calls.stream().noneMatch(call -> call.startsWith("useradd")), "only root creates users");
    }

    @Test
    void asANonRootUserWithoutSudoEachScriptInstallsNothingAndNamesTheCommandToRun() throws Exception {
        Map<String, String> expected = Map.of(
                "scripts/mosquitto.sh", "run 'sudo apt-get update && sudo apt-get install -y mosquitto'",
                "scripts/stack.sh", "run 'sudo apt-get update && sudo apt-get install -y pgbouncer postgresql postgresql-client'",
                "scripts/install.sh", "run 'sudo apt-get update && sudo apt-get install -y pgbouncer postgresql postgresql-client'");
        for (Map.Entry<String, String> script : expected.entrySet()) {
            Result result = run(false, false, "1001", script.getKey(), "install");
            assertNotEquals(0, result.exit, script.getKey() + " passed without installing:\n" + result);
            assertTrue(result.output.contains(script.getValue()), script.getKey() + ":\n" + result);
            assertTrue(result.calls.isEmpty(), script.getKey() + " ran something: " + result.calls);
        }
    }

    @Test
    void asANonRootUserWhoseSudoWantsAPasswordNothingPromptsAndTheCommandIsNamed() throws Exception {
        Result result = run(true, true, "1001", "scripts/mosquitto.sh", "install");

        assertNotEquals(0, result.exit, result.toString());
        assertTrue(result.output.contains("run 'sudo apt-get update && sudo apt-get install -y mosquitto'"), result.toString());
        assertEquals(List.of("sudo -n true"), result.calls, "only the non-interactive probe");
    }

    @Test
    void asRootAptGetRunsDirectlyAndSudoIsNeverAsked() throws Exception {
        Result result = run(true, false, "0", "scripts/mosquitto.sh", "install");

        assertEquals(0, result.exit, result.toString());
        assertTrue(result.calls.stream().noneMatch(call -> call.startsWith("sudo")), result.calls.toString());
        assertTrue(result.calls.contains("apt-get(uid 0, noninteractive) install -y -qq mosquitto"), result.calls.toString());
    }

    record Result(int exit, String output, List<String> calls) {
        @Override
        public String toString() {
            return "exit " + exit + "\n" + output + "\ncalls: " + calls;
        }
    }

    /**
     * Runs a script with PATH = the stand-ins, then the machine's /usr/bin and /bin minus {@link #HIDDEN} (linked
     * one by one into a directory of their own: /usr/bin also holds psql and jq).
     */
    private Result run(boolean sudo, boolean sudoNeedsPassword, String uid, String... command) throws Exception {
        Path fakes = Files.createDirectories(work.resolve("fakes-" + System.nanoTime()));
        write(fakes.resolve("id"), FAKE_ID);
        write(fakes.resolve("apt-get"), FAKE_APT_GET);
        write(fakes.resolve("useradd"), FAKE_USERADD);
        if (sudo) {
            write(fakes.resolve("sudo"), FAKE_SUDO);
        }
        Path tools = machineToolsExceptHidden();
        Path calls = work.resolve("calls-" + System.nanoTime());
        Files.createFile(calls);

        List<String> line = new ArrayList<>(List.of("/bin/bash", Repo.ROOT.resolve(command[0]).toString()));
        line.addAll(List.of(command).subList(1, command.length));
        ProcessBuilder builder = new ProcessBuilder(line).directory(Repo.ROOT.toFile()).redirectErrorStream(true);
        Map<String, String> env = builder.environment();
        env.put("PATH", fakes + ":" + tools);
        env.put("CALLS", calls.toString());
        env.put("FAKE_UID", uid);
        env.put("FAKE_SUDO_NEEDS_PASSWORD", sudoNeedsPassword ? "1" : "0");
        env.remove("SUDO_USER");
        env.remove("DEBIAN_FRONTEND");
        // No PostgreSQL where stack.sh looks, so that it is missing too.
        env.put("PG_BIN", work.resolve("no-postgresql").toString());
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), String.join(" ", command) + " did not finish:\n" + output);
        return new Result(process.exitValue(), output, Files.readAllLines(calls));
    }

    private Path machineToolsExceptHidden() throws IOException {
        Path tools = work.resolve("tools");
        if (Files.isDirectory(tools)) {
            return tools;
        }
        Files.createDirectories(tools);
        for (String dir : List.of("/usr/local/bin", "/usr/bin", "/bin")) {
            if (!Files.isDirectory(Path.of(dir))) {
                continue;
            }
            try (Stream<Path> entries = Files.list(Path.of(dir))) {
                for (Path entry : entries.toList()) {
                    Path link = tools.resolve(entry.getFileName().toString());
                    if (!HIDDEN.contains(entry.getFileName().toString()) && !Files.exists(link, java.nio.file.LinkOption.NOFOLLOW_LINKS)
                            && Files.isExecutable(entry)) {
                        Files.createSymbolicLink(link, entry);
                    }
                }
            }
        }
        return tools;
    }

    private static void write(Path file, String text) throws IOException {
        Files.writeString(file, text);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
}
