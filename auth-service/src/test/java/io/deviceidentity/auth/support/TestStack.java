package io.deviceidentity.auth.support;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Stops and starts the test PgBouncer through the same script that `make test` used to start it. */
public final class TestStack {

    private TestStack() {
    }

    public static void stopPgBouncer() {
        run("pgbouncer-stop");
    }

    public static void startPgBouncer() {
        run("pgbouncer-start");
    }

    private static void run(String command) {
        String script = System.getProperty("stack.script", Path.of("..", "scripts", "stack.sh").toString());
        ProcessBuilder process = new ProcessBuilder(script, command, "test").inheritIO();
        process.environment().put("PG_PORT", System.getProperty("test.pg.port", "55433"));
        process.environment().put("PGBOUNCER_PORT", System.getProperty("test.pgbouncer.port", "56433"));
        try {
            Process running = process.start();
            if (!running.waitFor(60, TimeUnit.SECONDS) || running.exitValue() != 0) {
                throw new IllegalStateException("scripts/stack.sh " + command + " failed");
            }
        } catch (IOException e) {
            throw new IllegalStateException("could not run scripts/stack.sh " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
