package io.deviceidentity.loadtest.devices;

import java.time.Duration;

/**
 * The open model's arrival rate over the run: {@code rate} per second, and from {@code stepAt} on (when set)
 * {@code stepRate}. A step is how a storm starts in the field (a network blip brings every device back at once),
 * and it shows how fast a queue forms and whether the service recovers its goodput once it has.
 */
public record RateSchedule(double rate, Duration stepAt, double stepRate) {

    public RateSchedule {
        if (rate <= 0) {
            throw new IllegalArgumentException("--rate must be positive");
        }
        if (stepAt != null && (stepAt.isNegative() || stepRate <= 0)) {
            throw new IllegalArgumentException("--step-at needs a non-negative time and a positive --step-rate");
        }
    }

    public static RateSchedule constant(double rate) {
        return new RateSchedule(rate, null, 0);
    }

    public boolean hasStep() {
        return stepAt != null;
    }

    /** Arrivals per second at {@code sinceStart} into the run. */
    public double rateAt(Duration sinceStart) {
        return hasStep() && sinceStart.compareTo(stepAt) >= 0 ? stepRate : rate;
    }

    /** The rate the run ends at (what the steady state measures). */
    public double finalRate() {
        return hasStep() ? stepRate : rate;
    }

    public String describe() {
        return hasStep() ? fmt(rate) + "/s, " + fmt(stepRate) + "/s from " + Durations.format(stepAt) : fmt(rate) + "/s";
    }

    private static String fmt(double value) {
        return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
    }
}
