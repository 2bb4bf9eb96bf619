package io.deviceidentity.loadtest.devices;

import io.deviceidentity.loadtest.emqx.Answer;

/**
 * What the device model tells the report, besides the calls themselves. {@code part} is the index of the device's
 * {@link PopulationPart} (0 in a population of one part).
 */
public interface AttemptListener {

    /** A device's first connect attempt (an arrival of the open model, a call of the closed one). */
    void freshAttempt(int part);

    /** A device tries again after a failed connect. */
    void retryAttempt(int part);

    /** An arrival found no idle registered device in its part: the population is too small for the rate and duration. */
    void populationExhausted(int part);

    /**
     * What a device got for one attempt, as EMQX hands it to the device: the answer in time, or
     * {@link Answer#TIMEOUT}. {@code firstAttempt} is true for the attempt of an arrival (not a retry);
     * {@code latencyNanos} runs from the attempt entering EMQX's client to the device having its result.
     */
    default void attemptEnded(int part, boolean firstAttempt, Answer answer, long latencyNanos) {
    }
}
