package io.deviceidentity.registration.support;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/** Drives the test stack's scripts/stack.sh, e.g. to stop PgBouncer under a running service. */
public final class LocalStack {

    private LocalStack() {
    }

    public static void run(String command) {
        String script = System.getProperty("stack.script");
        if (script == null) {
            throw new IllegalStateException("system property stack.script is not set (see the root pom)");
        }
        ProcessBuilder builder = new ProcessBuilder("bash", script, command, "test").inheritIO();
        builder.environment().put("PG_PORT", System.getProperty("test.pg.port", "55433"));
        builder.environment().put("PGBOUNCER_PORT", System.getProperty("test.pgbouncer.port", "56433"));
        try {
            Process process = builder.start();
            if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException("stack.sh " + command + " failed");
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
