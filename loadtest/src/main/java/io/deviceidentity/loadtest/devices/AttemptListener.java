package io.deviceidentity.loadtest.devices;

/** What the device model tells the report, besides the calls themselves. */
public interface AttemptListener {

    /** A device's first connect attempt (an arrival of the open model). */
    void freshAttempt();

    /** A device tries again after a failed connect. */
    void retryAttempt();

    /** An arrival found no idle registered device: the population is too small for the rate and duration. */
    void populationExhausted();
}
