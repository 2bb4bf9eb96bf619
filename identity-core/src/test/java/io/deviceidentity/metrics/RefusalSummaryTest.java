package io.deviceidentity.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

/** Refusals are summarised, one line per operation and reason an interval, on a virtual clock. */
class RefusalSummaryTest {

    private static final long INTERVAL = Duration.ofSeconds(10).toNanos();
    private static final RefusalSummary.Key OVERLOAD = new RefusalSummary.Key("authn", "overload");
    private static final RefusalSummary.Key DEADLINE = new RefusalSummary.Key("authn", "deadline");

    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private final RefusalSummary summary = new RefusalSummary(INTERVAL, clock::get);

    @Test
    void refusalsWithinAnIntervalWriteNoLine() {
        for (int i = 0; i < 10_000; i++) {
            clock.addAndGet(INTERVAL / 20_000);
            assertTrue(summary.refused(OVERLOAD).isEmpty());
        }
    }

    @Test
    void theFirstRefusalAfterTheIntervalGetsOneLinePerReasonWithEveryCountSinceTheLastSummary() {
        for (int i = 0; i < 700; i++) {
            summary.refused(OVERLOAD);
        }
        for (int i = 0; i < 3; i++) {
            summary.refused(DEADLINE);
        }
        clock.addAndGet(INTERVAL);

        List<RefusalSummary.Line> lines = summary.refused(OVERLOAD);

        assertEquals(2, lines.size());
        assertEquals(701, count(lines, OVERLOAD));
        assertEquals(3, count(lines, DEADLINE));
        assertEquals(INTERVAL, lines.get(0).spanNanos());
    }

    @Test
    void countsStartAfreshAfterASummaryAndQuietReasonsWriteNothing() {
        summary.refused(OVERLOAD);
        summary.refused(DEADLINE);
        clock.addAndGet(INTERVAL);
        summary.refused(OVERLOAD);
        summary.refused(OVERLOAD);
        clock.addAndGet(3 * INTERVAL);

        List<RefusalSummary.Line> lines = summary.refused(OVERLOAD);

        assertEquals(List.of(new RefusalSummary.Line(OVERLOAD, 2, 3 * INTERVAL)), lines);
    }

    @Test
    void aZeroIntervalMeansNoSummary() {
        assertTrue(new RefusalSummary(0, clock::get).summarises() == false);
        assertTrue(summary.summarises());
    }

    private static long count(List<RefusalSummary.Line> lines, RefusalSummary.Key key) {
        return lines.stream().filter(line -> line.key().equals(key)).mapToLong(RefusalSummary.Line::count).sum();
    }
}
