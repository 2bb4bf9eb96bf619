package io.deviceidentity.loadtest.devices;

import java.time.Duration;
import java.util.Optional;

import io.deviceidentity.loadtest.emqx.Answer;
import io.deviceidentity.loadtest.emqx.AuthnCalls;
import io.vertx.core.Vertx;

/**
 * The open model: devices arrive at the schedule's rate per second (each a random idle registered device of a part
 * drawn by the parts' shares, or a share of unknown devices), connect through the EMQX client, and after any failed
 * connect retry on their {@link RetryPolicy}. Offered load is arrivals plus retries, so a service that fails devices
 * feeds its own overload: exactly the incident's loop.
 * <p>
 * What an allowed device does next: by default it stays connected (each device arrives at most once, so a run needs
 * arrivals/s × duration devices). With {@code disconnectAfterAllow} it disconnects at once and is idle again, free to
 * arrive again: a reconnect storm of known devices at rates far above population ÷ duration (a broker node that is
 * lost again and again; every arrival is still a random idle device).
 */
public final class ConnectStorm implements Workload {

    /** How often due arrivals are released; fine enough that Poisson gaps are kept at the rates used here. */
    private static final long TICK_MILLIS = 5;

    private final Vertx vertx;
    private final AuthnCalls client;
    private final DevicePopulation population;
    private final RetryPolicy retry;
    private final RateSchedule rate;
    private final AttemptListener listener;
    private final boolean disconnectAfterAllow;
    private PoissonArrivals arrivals;
    private long ticker = -1;
    private boolean running;
    private long connected;

    public ConnectStorm(Vertx vertx, AuthnCalls client, DevicePopulation population, RetryPolicy retry,
            RateSchedule rate, AttemptListener listener) {
        this(vertx, client, population, retry, rate, listener, false);
    }

    public ConnectStorm(Vertx vertx, AuthnCalls client, DevicePopulation population, RetryPolicy retry,
            RateSchedule rate, AttemptListener listener, boolean disconnectAfterAllow) {
        this.vertx = vertx;
        this.client = client;
        this.population = population;
        this.retry = retry;
        this.rate = rate;
        this.listener = listener;
        this.disconnectAfterAllow = disconnectAfterAllow;
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

    /** Allows in time so far (with disconnect-after-allow a device counts once per connect). */
    @Override
    public long connected() {
        return connected;
    }

    private void releaseDueArrivals() {
        int due = arrivals.dueBy(System.nanoTime());
        for (int i = 0; i < due; i++) {
            Device device;
            if (population.nextArrivalIsUnknown()) {
                device = population.newUnknown();
            } else {
                int part = population.nextPart();
                device = population.takeIdle(part);
                if (device == null) {
                    listener.populationExhausted(part);
                    continue;
                }
            }
            listener.freshAttempt(device.part);
            attempt(device, true);
        }
    }

    private void attempt(Device device, boolean first) {
        device.state = Device.State.CONNECTING;
        long sent = System.nanoTime();
        client.authenticate(device.body, answer -> {
            listener.attemptEnded(device.part, first, answer, System.nanoTime() - sent);
            finished(device, answer);
        });
    }

    private void finished(Device device, Answer answer) {
        if (answer.isAllow()) {
            connected++;
            device.failures = 0;
            if (disconnectAfterAllow) {
                population.makeIdle(device);
            } else {
                device.state = Device.State.CONNECTED;
            }
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
                listener.retryAttempt(device.part);
                attempt(device, false);
            }
        });
    }
}
