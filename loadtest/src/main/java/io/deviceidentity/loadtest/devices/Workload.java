package io.deviceidentity.loadtest.devices;

/** Something that drives authn calls while the run lasts. Both methods run on the event loop. */
public interface Workload {

    void start();

    /** Stops making new attempts; calls already made finish on their own. */
    void stop();

    /** Devices connected so far (allowed in time). */
    long connected();
}
