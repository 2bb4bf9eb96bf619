package io.deviceidentity.loadtest.devices;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;

import org.junit.jupiter.api.Test;

import io.deviceidentity.loadtest.emqx.Answer;
import io.deviceidentity.loadtest.emqx.AuthnCalls;
import io.vertx.core.buffer.Buffer;

/** The closed loop's each-device-once pass (how bench.sh has every known device verified once). */
class ClosedLoopEachOnceTest {

    private static final Answer ALLOW = new Answer(200, "allow");
    private static final Answer OVERLOAD = new Answer(503, "overload");

    /** Answers calls when {@link #drain()} runs (not inside the call), by client id, counting calls per device. */
    private static final class FakeService implements AuthnCalls {
        final Map<String, Integer> calls = new HashMap<>();
        final Deque<Runnable> pending = new ArrayDeque<>();
        final Function<String, Answer> answer;
        int maxInFlight;

        FakeService(Function<String, Answer> answer) {
            this.answer = answer;
        }

        @Override
        public void authenticate(Buffer body, Consumer<Answer> caller) {
            String clientId = body.toJsonObject().getString("clientid");
            calls.merge(clientId, 1, Integer::sum);
            pending.add(() -> caller.accept(answer.apply(clientId)));
            maxInFlight = Math.max(maxInFlight, pending.size());
        }

        void drain() {
            while (!pending.isEmpty()) {
                pending.poll().run();
            }
        }
    }

    private static final class Events implements AttemptListener {
        final List<String> log = new ArrayList<>();

        @Override
        public void freshAttempt(int part) {
            log.add("fresh");
        }

        @Override
        public void retryAttempt(int part) {
            log.add("retry");
        }

        @Override
        public void populationExhausted(int part) {
            log.add("exhausted");
        }
    }

    private static DevicePopulation devices(int n) {
        return new DevicePopulation(new PopulationSpec(n, "d-", "pw-", null, 0, 0, 1));
    }

    @Test
    void everyDeviceIsAllowedExactlyOnceAndThePassEnds() {
        Map<String, Integer> failuresLeft = new HashMap<>(Map.of("d-7", 2));
        FakeService service = new FakeService(id -> failuresLeft.merge(id, -1, Integer::sum) >= 0 ? OVERLOAD : ALLOW);
        Events events = new Events();
        ClosedLoop loop = new ClosedLoop(service, devices(50), 4, ClosedLoop.Mode.EACH_ONCE, events, () -> 0L);

        loop.start();
        assertFalse(loop.finished());
        service.drain();

        assertTrue(loop.finished());
        assertEquals(50, loop.connected());
        assertEquals(50, service.calls.size());
        assertEquals(3, service.calls.get("d-7"), "two 503s, then the allow");
        service.calls.forEach((id, count) -> assertTrue(id.equals("d-7") || count == 1, id + " called " + count));
        assertEquals(50, events.log.stream().filter("fresh"::equals).count());
        assertEquals(2, events.log.stream().filter("retry"::equals).count());
        assertFalse(events.log.contains("exhausted"), "the end of a pass is not an exhausted population");
        assertTrue(service.maxInFlight <= 4, "never more callers than users");
    }

    @Test
    void aDeviceThatNeverGetsInIsGivenUpOnAfterFiveAttempts() {
        FakeService service = new FakeService(id -> id.equals("d-2") ? OVERLOAD : ALLOW);
        ClosedLoop loop = new ClosedLoop(service, devices(3), 2, ClosedLoop.Mode.EACH_ONCE, new Events(), () -> 0L);
        loop.start();
        service.drain();
        assertTrue(loop.finished());
        assertEquals(2, loop.connected());
        assertEquals(1, loop.gaveUp());
        assertEquals(ClosedLoop.EACH_ONCE_ATTEMPTS, service.calls.get("d-2"));
    }

    @Test
    void theCyclingLoopTakesDevicesAgainAndNeverFinishes() {
        FakeService service = new FakeService(id -> ALLOW);
        ClosedLoop loop = new ClosedLoop(service, devices(2), 2, ClosedLoop.Mode.CYCLE, new Events(), () -> 0L);
        loop.start();
        for (int round = 0; round < 10; round++) {
            List<Runnable> now = new ArrayList<>(service.pending);
            service.pending.clear();
            now.forEach(Runnable::run);
        }
        loop.stop();
        assertFalse(loop.finished());
        assertEquals(22, service.calls.values().stream().mapToInt(Integer::intValue).sum(), "2 users x 11 calls");
    }
}
