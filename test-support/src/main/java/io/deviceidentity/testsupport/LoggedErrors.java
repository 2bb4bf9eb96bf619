package io.deviceidentity.testsupport;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Records every ERROR (JUL SEVERE) the application logs while open, in the JVM a {@code @QuarkusTest} shares with
 * the application (JBoss LogManager is the JUL log manager there, so the root logger is the application's). For
 * tests that prove hostile input is answered quietly: the runbook tells on-call to file every ERROR as a defect.
 */
public final class LoggedErrors extends Handler implements AutoCloseable {

    private final List<String> errors = new CopyOnWriteArrayList<>();

    private LoggedErrors() {
        setLevel(Level.SEVERE);
    }

    public static LoggedErrors record() {
        LoggedErrors handler = new LoggedErrors();
        Logger.getLogger("").addHandler(handler);
        return handler;
    }

    @Override
    public void publish(LogRecord record) {
        if (record.getLevel().intValue() >= Level.SEVERE.intValue()) {
            Throwable thrown = record.getThrown();
            errors.add(record.getLoggerName() + ": " + record.getMessage()
                    + (thrown == null ? "" : " (" + thrown + ")"));
        }
    }

    /** The ERRORs logged so far: logger, message and exception. */
    public List<String> errors() {
        return List.copyOf(errors);
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
        Logger.getLogger("").removeHandler(this);
    }
}
