package io.deviceidentity.loadtest.devices;

import io.deviceidentity.loadtest.emqx.AuthnCalls;

/**
 * The closed model: {@code users} callers each send the next connect as soon as the previous one is answered.
 * Load adapts to the service's speed; what it measures is how many checks per second the service completes when
 * busy (its capacity).
 * <ul>
 *   <li>{@link Mode#CYCLE}: callers cycle through random registered devices (every device goes back to the idle set
 *       after its answer), for as long as the run lasts;</li>
 *   <li>{@link Mode#EACH_ONCE}: one pass over the population: an allowed device stays connected and is not taken
 *       again, a failed one goes back to be tried again later (at most {@link #EACH_ONCE_ATTEMPTS} times, then it gives
 *       up); the workload is {@link #finished()} when no device is left to try. This is how {@code make bench} has
 *       every device verified once (a fast-path verifier written for each) before the known-device storm.</li>
 * </ul>
 */
public final class ClosedLoop implements Workload {

    public enum Mode { CYCLE, EACH_ONCE }

    /** Attempts a device gets in an each-once pass; below the service's per-device burst (10). */
    static final int EACH_ONCE_ATTEMPTS = 5;

    private final AuthnCalls client;
    private final DevicePopulation population;
    private final int users;
    private final Mode mode;
    private final AttemptListener listener;
    private final LongClock clock;
    private boolean running;
    private long connected;
    private long gaveUp;
    private int inFlight;

    public ClosedLoop(AuthnCalls client, DevicePopulation population, int users, Mode mode,
            AttemptListener listener) {
        this(client, population, users, mode, listener, System::nanoTime);
    }

    ClosedLoop(AuthnCalls client, DevicePopulation population, int users, Mode mode, AttemptListener listener,
            LongClock clock) {
        if (users < 1) {
            throw new IllegalArgumentException("--closed-loop needs at least 1 user");
        }
        this.client = client;
        this.population = population;
        this.users = users;
        this.mode = mode;
        this.listener = listener;
        this.clock = clock;
    }

    @Override
    public void start() {
        running = true;
        for (int i = 0; i < users; i++) {
            next();
        }
    }

    @Override
    public void stop() {
        running = false;
    }

    @Override
    public long connected() {
        return connected;
    }

    /** Devices an each-once pass gave up on (failed {@link #EACH_ONCE_ATTEMPTS} times). */
    public long gaveUp() {
        return gaveUp;
    }

    @Override
    public boolean finished() {
        return mode == Mode.EACH_ONCE && inFlight == 0 && population.idleCount() == 0;
    }

    private void next() {
        if (!running) {
            return;
        }
        Device device = mode == Mode.EACH_ONCE ? population.takeAnyIdle() : population.takeIdle();
        if (device == null) {
            if (mode == Mode.CYCLE) {
                listener.populationExhausted(0);
            }
            // EACH_ONCE: nothing left for this caller; one whose device fails puts it back and takes it again.
            return;
        }
        boolean first = device.failures == 0;
        if (first) {
            listener.freshAttempt(device.part);
        } else {
            listener.retryAttempt(device.part);
        }
        inFlight++;
        long sent = clock.nanoTime();
        client.authenticate(device.body, answer -> {
            inFlight--;
            listener.attemptEnded(device.part, first, answer, clock.nanoTime() - sent);
            if (answer.isAllow()) {
                connected++;
            }
            if (mode == Mode.CYCLE) {
                // Back into the idle set: a capacity run cycles through the devices rather than connecting them.
                population.makeIdle(device);
            } else if (answer.isAllow()) {
                device.state = Device.State.CONNECTED;
            } else if (++device.failures >= EACH_ONCE_ATTEMPTS) {
                device.state = Device.State.GAVE_UP;
                gaveUp++;
            } else {
                population.makeIdle(device);
            }
            next();
        });
    }

    /** The time source (tests use a virtual one). */
    @FunctionalInterface
    interface LongClock {
        long nanoTime();
    }
}
