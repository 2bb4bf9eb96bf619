package io.deviceidentity.testsupport;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Password files written by Mosquitto's own {@code mosquitto_passwd} (the Debian package {@code mosquitto}), run as a
 * process: what a fleet migrated from a Mosquitto broker brings, made by the real tool rather than by hand.
 */
public final class MosquittoPasswd {

    /** {@code -H} values: {@code $7$} PBKDF2-SHA512 (the tool's default) and {@code $6$} salted SHA-512. */
    public static final String PBKDF2 = "sha512-pbkdf2";
    public static final String SHA512 = "sha512";

    private MosquittoPasswd() {
    }

    /** Adds {@code user} with {@code password} to {@code file} (created when missing), hashed with {@code type}. */
    public static void add(Path file, String type, String user, String password) {
        List<String> command = Files.exists(file)
                ? List.of("mosquitto_passwd", "-H", type, "-b", file.toString(), user, password)
                : List.of("mosquitto_passwd", "-H", type, "-c", "-b", file.toString(), user, password);
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException("mosquitto_passwd failed (apt-get install mosquitto): " + output);
            }
        } catch (IOException e) {
            throw new IllegalStateException("mosquitto_passwd could not run (apt-get install mosquitto)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The hash {@code mosquitto_passwd} writes for {@code password}: the part after {@code user:} of its line. */
    public static String hash(String type, String password) {
        try {
            Path dir = Files.createTempDirectory("mosquitto-passwd");
            Path file = dir.resolve("passwd");
            add(file, type, "device", password);
            String line = Files.readAllLines(file).get(0);
            Files.delete(file);
            Files.delete(dir);
            return line.substring(line.indexOf(':') + 1);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
