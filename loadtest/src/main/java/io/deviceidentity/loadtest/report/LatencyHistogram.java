package io.deviceidentity.loadtest.report;

import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;

/** Answer latencies in microseconds (HdrHistogram, 3 significant digits, up to one hour). */
final class LatencyHistogram {

    private static final long HIGHEST_MICROS = TimeUnit.HOURS.toMicros(1);

    private final Histogram histogram = new Histogram(HIGHEST_MICROS, 3);

    void record(long nanos) {
        histogram.recordValue(Math.min(HIGHEST_MICROS, Math.max(0, nanos / 1_000)));
    }

    void reset() {
        histogram.reset();
    }

    LatencySummary summary() {
        if (histogram.getTotalCount() == 0) {
            return LatencySummary.EMPTY;
        }
        return new LatencySummary(histogram.getTotalCount(), millis(histogram.getValueAtPercentile(50)),
                millis(histogram.getValueAtPercentile(90)), millis(histogram.getValueAtPercentile(99)),
                millis(histogram.getMaxValue()));
    }

    private static double millis(long micros) {
        return Math.round(micros / 100.0) / 10.0;
    }
}
