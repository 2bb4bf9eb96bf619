package io.deviceidentity.loadtest.emqx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.vertx.core.buffer.Buffer;

/**
 * ehttpc 0.7.3's rule, on a virtual clock: the clock starts when the call enters the worker's queue; an answer is
 * delivered only within request_timeout of that; a later one is dropped unread and the caller gets its timeout
 * 0.5 s after the expiry; an expired queued call is never sent; transport errors are retried twice, statuses never.
 */
class EhttpcInTimeRuleTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final Answer ALLOW = new Answer(200, "allow");
    private static final Answer OVERLOAD = new Answer(503, "overload");

    private final VirtualClock clock = new VirtualClock();
    private final RecordingListener listener = new RecordingListener();
    private final List<ScriptedTransport> connections = new ArrayList<>();
    private final List<Answer> callerGot = new ArrayList<>();

    private EmqxAuthnClient client(int poolSize, int pipelining) {
        return new EmqxAuthnClient(poolSize, pipelining, TIMEOUT, listener, clock, () -> {
            ScriptedTransport t = new ScriptedTransport();
            connections.add(t);
            return t;
        });
    }

    private void call(EmqxAuthnClient client) {
        client.authenticate(Buffer.buffer("{}"), callerGot::add);
    }

    @Test
    void anAnswerOneMillisecondBeforeTheTimeoutIsDelivered() {
        EmqxAuthnClient client = client(1, 1);
        call(client);
        clock.advance(TIMEOUT.minusMillis(1));
        connections.get(0).answer(ALLOW);

        assertEquals(List.of(ALLOW), callerGot);
        assertTrue(listener.answers.get(0).inTime());
        clock.advance(Duration.ofSeconds(5));
        assertEquals(List.of(ALLOW), callerGot, "no timeout after an answer in time");
        assertEquals(0, listener.timedOut);
    }

    @Test
    void anAnswerOneMillisecondAfterTheTimeoutIsLateAndTheCallerTimesOut() {
        EmqxAuthnClient client = client(1, 1);
        call(client);
        clock.advance(TIMEOUT.plusMillis(1));
        connections.get(0).answer(ALLOW);

        assertTrue(callerGot.isEmpty(), "the late answer is dropped unread, not delivered");
        assertFalse(listener.answers.get(0).inTime(), "counted as late");
        clock.advance(Duration.ofMillis(498)); // 10.499 s after the call
        assertTrue(callerGot.isEmpty(), "the caller waits request_timeout + 0.5 s");
        clock.advance(Duration.ofMillis(1));
        assertEquals(List.of(Answer.TIMEOUT), callerGot);
        assertEquals(1, listener.timedOut);
    }

    @Test
    void anAnswerInsideTheCallersExtraHalfSecondIsNotDeliveredEither() {
        EmqxAuthnClient client = client(1, 1);
        call(client);
        clock.advance(TIMEOUT.plusMillis(300));
        connections.get(0).answer(ALLOW);
        clock.advance(Duration.ofSeconds(1));

        assertEquals(List.of(Answer.TIMEOUT), callerGot, "a device behind EMQX sees a timeout, never the allow");
        assertFalse(listener.answers.get(0).inTime());
    }

    @Test
    void theClockStartsInTheQueueNotWhenTheRequestIsSent() {
        EmqxAuthnClient client = client(1, 1);
        call(client);
        call(client); // waits behind the first: pipelining 1
        assertEquals(1, connections.get(0).requestsSent);
        clock.advance(Duration.ofSeconds(6));
        connections.get(0).answer(ALLOW); // first in time; the second is sent now, 6 s after it was queued
        assertEquals(2, connections.get(0).requestsSent);
        clock.advance(Duration.ofMillis(4_001)); // 5 s of service time, but 10.001 s since it entered the queue
        connections.get(0).answer(ALLOW);

        assertEquals(List.of(ALLOW), callerGot);
        assertFalse(listener.answers.get(1).inTime());
        assertEquals(Duration.ofMillis(10_001).toNanos(), listener.answers.get(1).latencyNanos(),
                "latency counts the time queued in EMQX");
    }

    @Test
    void aQueuedCallThatExpiredIsDroppedUnsent() {
        EmqxAuthnClient client = client(1, 1);
        call(client);
        call(client);
        clock.advance(TIMEOUT.plusMillis(1));
        assertEquals(0, client.queued(), "the expired call left the queue");
        assertEquals(1, listener.expiredInQueue);
        connections.get(0).answer(ALLOW);

        assertEquals(1, connections.get(0).requestsSent, "the expired call was never sent");
        clock.advance(Duration.ofSeconds(1));
        assertEquals(List.of(Answer.TIMEOUT, Answer.TIMEOUT), callerGot);
    }

    @Test
    void aStatusIsAnAnswerAndIsNeverRetried() {
        EmqxAuthnClient client = client(1, 1);
        call(client);
        connections.get(0).answer(OVERLOAD);

        assertEquals(List.of(OVERLOAD), callerGot);
        assertEquals(1, connections.get(0).requestsSent);
    }

    @Test
    void transportErrorsAreRetriedTwiceOnTheSameWorkerEachWithAFreshClock() {
        EmqxAuthnClient client = client(1, 1);
        call(client);
        clock.advance(Duration.ofSeconds(8));
        connections.get(0).fail();
        assertEquals(2, connections.get(0).requestsSent, "retried on the same connection");
        clock.advance(Duration.ofSeconds(8)); // 16 s after the first call, 8 s into the retry: still in time
        connections.get(0).fail();
        assertEquals(3, connections.get(0).requestsSent);
        connections.get(0).fail();

        assertEquals(3, connections.get(0).requestsSent, "no third retry");
        assertEquals(List.of(Answer.TRANSPORT_ERROR), callerGot);
    }
}
