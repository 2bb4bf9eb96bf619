package io.deviceidentity.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import org.jboss.logmanager.ExtLogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.deviceidentity.overload.Deadline;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * The outcome log: one INFO line per allow or deny, but a storm of 503 refusals is one summary line per reason and
 * interval (virtual clock), while the metric still counts every one.
 */
class OutcomeLogTest {

    private static final long INTERVAL = Duration.ofSeconds(10).toNanos();

    private final AtomicLong clock = new AtomicLong();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final List<String> infoLines = new CopyOnWriteArrayList<>();
    private final Logger outcomeLog = Logger.getLogger("io.deviceidentity.outcome");
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord record) {
            if (record.getLevel().intValue() >= Level.INFO.intValue()) {
                infoLines.add(record instanceof ExtLogRecord ext ? ext.getFormattedMessage()
                        : String.format(record.getMessage(), record.getParameters()));
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private Level previousLevel;

    @BeforeEach
    void listen() {
        previousLevel = outcomeLog.getLevel();
        outcomeLog.setLevel(Level.INFO);
        outcomeLog.addHandler(handler);
    }

    @AfterEach
    void stopListening() {
        outcomeLog.removeHandler(handler);
        outcomeLog.setLevel(previousLevel);
    }

    @Test
    void aStormOfRefusalsIsOneSummaryLinePerReasonAndIntervalAndEveryRefusalIsCounted() {
        Outcomes outcomes = new Outcomes(registry, INTERVAL, clock::get);
        for (int i = 0; i < 1000; i++) {
            outcomes.record(MetricNames.AUTHN_OUTCOMES, "authn", "dev-" + i, deadline(), 503, "unavailable",
                    "overload");
        }
        assertTrue(infoLines.isEmpty(), infoLines.toString());

        clock.addAndGet(INTERVAL);
        outcomes.record(MetricNames.AUTHN_OUTCOMES, "authn", "dev-x", deadline(), 503, "unavailable", "overload");

        assertEquals(1, infoLines.size(), infoLines.toString());
        assertTrue(infoLines.get(0).contains("authn result=unavailable reason=overload status=503 count=1001"),
                infoLines.get(0));
        assertEquals(1001, registry.get(MetricNames.AUTHN_OUTCOMES).tag(MetricNames.TAG_REASON, "overload")
                .counter().count());
    }

    @Test
    void allowsAndDenialsKeepALineEach() {
        Outcomes outcomes = new Outcomes(registry, INTERVAL, clock::get);
        outcomes.record(MetricNames.AUTHN_OUTCOMES, "authn", "dev-1", deadline(), 200, "allow", "bcrypt");
        outcomes.record(MetricNames.AUTHN_OUTCOMES, "authn", "dev-2", deadline(), 200, "deny", "revoked");

        assertEquals(2, infoLines.size(), infoLines.toString());
        assertTrue(infoLines.get(1).contains("authn result=deny reason=revoked status=200 clientid=dev-2"),
                infoLines.get(1));
    }

    @Test
    void aZeroIntervalLogsEveryRefusalAsBefore() {
        Outcomes outcomes = new Outcomes(registry, 0, clock::get);
        for (int i = 0; i < 3; i++) {
            outcomes.record(MetricNames.AUTHN_OUTCOMES, "authn", "dev-" + i, deadline(), 503, "unavailable",
                    "overload");
        }
        assertEquals(3, infoLines.size(), infoLines.toString());
    }

    private static Deadline deadline() {
        return Deadline.after(System.nanoTime(), Duration.ofSeconds(4));
    }
}
