package io.deviceidentity.loadtest.devices;

/** Something that drives authn calls while the run lasts. All methods run on the event loop. */
public interface Workload {

    void start();

    /** Stops making new attempts; calls already made finish on their own. */
    void stop();

    /** Devices connected so far (allowed in time). */
    long connected();

    /** Whether the workload has nothing left to do before the run's end (a finished pass); the run then ends early. */
    default boolean finished() {
        return false;
    }
}
