package io.deviceidentity.loadtest.devices;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.deviceidentity.loadtest.emqx.Answer;
import io.deviceidentity.loadtest.emqx.AuthnCalls;
import io.vertx.core.Vertx;

/**
 * The open model's two answers to "what does an allowed device do next": stay connected (each device arrives once),
 * or disconnect and be free to arrive again (the known-device reconnect storm, more arrivals than devices).
 */
class ConnectStormReconnectTest {

    private final Vertx vertx = Vertx.vertx();

    @AfterEach
    void close() {
        vertx.close().toCompletionStage().toCompletableFuture().orTimeout(10, TimeUnit.SECONDS).join();
    }

    private static final class Counting implements AttemptListener {
        final AtomicLong fresh = new AtomicLong();
        final AtomicLong exhausted = new AtomicLong();
        final AtomicLong firstAllows = new AtomicLong();

        @Override
        public void freshAttempt(int part) {
            fresh.incrementAndGet();
        }

        @Override
        public void retryAttempt(int part) {
        }

        @Override
        public void populationExhausted(int part) {
            exhausted.incrementAndGet();
        }

        @Override
        public void attemptEnded(int part, boolean firstAttempt, Answer answer, long latencyNanos) {
            if (firstAttempt && answer.isAllow()) {
                firstAllows.incrementAndGet();
            }
        }
    }

    /** Runs 400 arrivals/s for 0.5 s from 50 devices against a service that allows everyone (answering on the event loop). */
    private long[] storm(boolean disconnectAfterAllow, Map<String, Integer> calls) throws Exception {
        DevicePopulation population = new DevicePopulation(new PopulationSpec(50, "d-", "pw-", null, 0, 0, 3));
        Counting events = new Counting();
        AuthnCalls service = (body, caller) -> {
            calls.merge(body.toJsonObject().getString("clientid"), 1, Integer::sum);
            vertx.runOnContext(v -> caller.accept(new Answer(200, "allow")));
        };
        CompletableFuture<long[]> done = new CompletableFuture<>();
        vertx.runOnContext(v -> {
            ConnectStorm storm = new ConnectStorm(vertx, service, population, RetryPolicy.parse("none"),
                    RateSchedule.constant(400), events, disconnectAfterAllow);
            storm.start();
            vertx.setTimer(500, t -> {
                storm.stop();
                vertx.setTimer(50, u -> done.complete(new long[] {storm.connected(), events.fresh.get(),
                        events.exhausted.get(), events.firstAllows.get()}));
            });
        });
        return done.get(10, TimeUnit.SECONDS);
    }

    @Test
    void aConnectedDeviceStaysConnectedByDefault() throws Exception {
        Map<String, Integer> calls = new ConcurrentHashMap<>();
        long[] result = storm(false, calls);
        assertEquals(50, result[0], "fifty devices, each connected once");
        assertTrue(result[2] > 0, "later arrivals found no idle device");
        calls.values().forEach(count -> assertEquals(1, count));
    }

    @Test
    void withDisconnectAfterAllowDevicesComeBackAgain() throws Exception {
        Map<String, Integer> calls = new ConcurrentHashMap<>();
        long[] result = storm(true, calls);
        assertTrue(result[0] > 100, "far more connects than devices: " + result[0]);
        assertEquals(result[1], result[0], "every arrival was allowed on its first attempt");
        assertEquals(result[0], result[3]);
        assertTrue(result[2] * 10 < result[1], "the population is not exhausted: " + result[2] + " of " + result[1]);
        assertTrue(calls.values().stream().anyMatch(count -> count > 1), "devices connected more than once: " + calls);
        assertTrue(calls.size() <= 50, "only the population's devices");
    }
}
