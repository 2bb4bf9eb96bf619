package io.deviceidentity.qos2probe.broker;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.deviceidentity.testsupport.tls.LocalCa;

/**
 * A Mosquitto on its own loopback port, through scripts/mosquitto.sh (which installs Debian's package when it is
 * missing). One directory per broker: a restart with persistence on reads back what the stop saved.
 */
final class Mosquitto implements AutoCloseable {

    private static final Path SCRIPT = Path.of(System.getProperty("mosquitto.script", "../scripts/mosquitto.sh"));

    private final Path dir;
    private final int port;
    private final boolean auth;

    private Mosquitto(Path dir, int port, boolean auth) {
        this.dir = dir;
        this.port = port;
        this.auth = auth;
    }

    static Mosquitto start(Path dir, int port, boolean persistence) throws Exception {
        return start(dir, port, persistence, false);
    }

    /** With {@code auth}, DIR/passwd and DIR/acl must exist (see {@link #writePasswordFile}). */
    static Mosquitto start(Path dir, int port, boolean persistence, boolean auth) throws Exception {
        Mosquitto broker = new Mosquitto(dir, port, auth);
        broker.run("start", dir.toString(), Integer.toString(port), persistence ? "on" : "off",
                auth ? "auth" : "");
        return broker;
    }

    /**
     * A broker whose listener speaks MQTT over TLS with a certificate {@code ca} signs for localhost and 127.0.0.1
     * (scripts/mosquitto.sh reads it from DIR/tls).
     */
    static Mosquitto startTls(Path dir, int port, LocalCa ca) throws Exception {
        ca.issue("mqtt-broker");
        Path tls = Files.createDirectories(dir.resolve("tls"));
        Files.copy(ca.certificate("mqtt-broker"), tls.resolve("server.crt"), StandardCopyOption.REPLACE_EXISTING);
        Files.copy(ca.key("mqtt-broker"), tls.resolve("server.key"), StandardCopyOption.REPLACE_EXISTING);
        return start(dir, port, false);
    }

    /** Stops (SIGTERM: Mosquitto saves its database when persistence is on) and starts again. */
    void restart(boolean persistence) throws Exception {
        run("stop", dir.toString());
        run("start", dir.toString(), Integer.toString(port), persistence ? "on" : "off", auth ? "auth" : "");
    }

    /** The restart as one shell command (for the probe's --before-reconnect). */
    String restartCommand(boolean persistence) {
        String script = "bash '" + SCRIPT.toAbsolutePath() + "'";
        return script + " stop '" + dir + "' && " + script + " start '" + dir + "' " + port + " "
                + (persistence ? "on" : "off") + (auth ? " auth" : "");
    }

    String address() {
        return "127.0.0.1:" + port;
    }

    /** The broker's log (log_type all): every packet it received and sent. */
    String log() {
        try {
            return Files.readString(dir.resolve("mosquitto.log"));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** mosquitto_passwd's file format, written with the tool itself (the test's passwords only). */
    static void writePasswordFile(Path dir, String user, String password, String... more) throws Exception {
        // mosquitto_passwd comes with the package: install it first if this test runs before any broker start.
        exec(List.of("bash", SCRIPT.toString(), "install"));
        Path file = dir.resolve("passwd");
        Files.writeString(file, "");
        List<String> pairs = new ArrayList<>(List.of(user, password));
        pairs.addAll(List.of(more));
        for (int i = 0; i < pairs.size(); i += 2) {
            exec(List.of("mosquitto_passwd", "-b", file.toString(), pairs.get(i), pairs.get(i + 1)));
        }
    }

    private void run(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("bash", SCRIPT.toString()));
        for (String arg : args) {
            if (!arg.isEmpty()) {
                command.add(arg);
            }
        }
        exec(command);
    }

    private static void exec(List<String> command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        // The first start may apt-get install the package.
        if (!process.waitFor(300, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException(command + " did not finish");
        }
        String output = new String(process.getInputStream().readAllBytes());
        if (process.exitValue() != 0) {
            throw new IllegalStateException(command + " failed: " + output);
        }
    }

    @Override
    public void close() throws Exception {
        run("stop", dir.toString());
    }
}
