package io.deviceidentity.loadtest.devices;

import io.deviceidentity.loadtest.emqx.EmqxAuthnClient;

/**
 * The closed model, for measuring capacity: {@code users} callers each send the next connect as soon as the
 * previous one is answered, cycling through the registered devices. Load adapts to the service's speed, so it
 * never overloads it; what it measures is how many checks per second the service completes when busy.
 */
public final class ClosedLoop implements Workload {

    private final EmqxAuthnClient client;
    private final DevicePopulation population;
    private final int users;
    private final AttemptListener listener;
    private boolean running;
    private long connected;

    public ClosedLoop(EmqxAuthnClient client, DevicePopulation population, int users, AttemptListener listener) {
        if (users < 1) {
            throw new IllegalArgumentException("--closed-loop needs at least 1 user");
        }
        this.client = client;
        this.population = population;
        this.users = users;
        this.listener = listener;
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

    private void next() {
        if (!running) {
            return;
        }
        Device device = population.takeIdle();
        if (device == null) {
            listener.populationExhausted();
            return;
        }
        listener.freshAttempt();
        client.authenticate(device.body, answer -> {
            if (answer.isAllow()) {
                connected++;
            }
            // Back into the idle set: a capacity run cycles through the devices rather than connecting them.
            population.makeIdle(device);
            next();
        });
    }
}
