package io.deviceidentity.testsupport;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Real faults on the test stack through scripts/faults.sh: PgBouncer SIGKILLed, PostgreSQL stopped with
 * {@code -m immediate}. The stack is shared by every test of the module, so callers repair in {@code finally}.
 */
public final class Faults {

    private Faults() {
    }

    public static void killPgBouncer() {
        run("faults.sh", "pgbouncer-kill");
    }

    public static void crashPostgres() {
        run("faults.sh", "postgres-crash");
    }

    /** PostgreSQL and PgBouncer both running again (scripts/stack.sh db-up, idempotent). */
    public static void repair() {
        run("stack.sh", "db-up");
    }

    private static void run(String script, String command) {
        Path stack = Path.of(System.getProperty("stack.script", "../scripts/stack.sh"));
        ProcessBuilder builder = new ProcessBuilder("bash", stack.resolveSibling(script).toString(), command, "test")
                .inheritIO();
        builder.environment().put("PG_PORT", System.getProperty("test.pg.port", "55433"));
        builder.environment().put("PGBOUNCER_PORT", System.getProperty("test.pgbouncer.port", "56433"));
        try {
            Process process = builder.start();
            if (!process.waitFor(90, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException(script + " " + command + " failed");
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
