package io.deviceidentity.loadtest.devices;

import java.time.Duration;
import java.util.Optional;

import io.deviceidentity.loadtest.emqx.Answer;
import io.deviceidentity.loadtest.emqx.EmqxAuthnClient;
import io.vertx.core.Vertx;

/**
 * The open model: devices arrive at the schedule's rate per second (each a random idle registered device, or a share of
 * unknown devices), connect through the EMQX client, and after any failed connect retry on their
 * {@link RetryPolicy}. An allowed device stays connected. Offered load is arrivals plus retries, so a service
 * that fails devices feeds its own overload: exactly the incident's loop.
 */
public final class ConnectStorm implements Workload {

    /** How often due arrivals are released; fine enough that Poisson gaps are kept at the rates used here. */
    private static final long TICK_MILLIS = 5;

    private final Vertx vertx;
    private final EmqxAuthnClient client;
    private final DevicePopulation population;
    private final RetryPolicy retry;
    private final RateSchedule rate;
    private final AttemptListener listener;
    private PoissonArrivals arrivals;
    private long ticker = -1;
    private boolean running;
    private long connected;

    public ConnectStorm(Vertx vertx, EmqxAuthnClient client, DevicePopulation population, RetryPolicy retry,
            RateSchedule rate, AttemptListener listener) {
        this.vertx = vertx;
        this.client = client;
        this.population = population;
        this.retry = retry;
        this.rate = rate;
        this.listener = listener;
    }

    @Override
    public void start() {
        running = true;
        arrivals = new PoissonArrivals(rate, System.nanoTime(), population.random());
        ticker = vertx.setPeriodic(TICK_MILLIS, id -> releaseDueArrivals());
    }

    @Override
    public void stop() {
        running = false;
        vertx.cancelTimer(ticker);
    }

    @Override
    public long connected() {
        return connected;
    }

    private void releaseDueArrivals() {
        int due = arrivals.dueBy(System.nanoTime());
        for (int i = 0; i < due; i++) {
            Device device = population.nextArrivalIsUnknown() ? population.newUnknown() : population.takeIdle();
            if (device == null) {
                listener.populationExhausted();
                continue;
            }
            listener.freshAttempt();
            attempt(device);
        }
    }

    private void attempt(Device device) {
        device.state = Device.State.CONNECTING;
        client.authenticate(device.body, answer -> finished(device, answer));
    }

    private void finished(Device device, Answer answer) {
        if (answer.isAllow()) {
            device.state = Device.State.CONNECTED;
            connected++;
            return;
        }
        device.failures++;
        Optional<Duration> delay = retry.delayAfter(device.failures, population.random());
        if (delay.isEmpty()) {
            device.state = Device.State.GAVE_UP;
            return;
        }
        device.state = Device.State.WAITING_TO_RETRY;
        vertx.setTimer(Math.max(1, delay.get().toMillis()), id -> {
            if (running) {
                listener.retryAttempt();
                attempt(device);
            }
        });
    }
}
