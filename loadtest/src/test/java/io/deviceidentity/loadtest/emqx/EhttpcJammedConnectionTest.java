package io.deviceidentity.loadtest.emqx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.vertx.core.buffer.Buffer;

/**
 * ehttpc 0.7.3's zombie-connection rule, on a virtual clock: a connection on which nothing was answered for
 * {@code max_inactive} (10 s) after the newest sent request's expiry is dropped ({@code check_gun_jammed}), looked at
 * on every event of the worker and every 10 s; the next request goes on a new connection; what the dropped connection
 * would still have said is nobody's.
 */
class EhttpcJammedConnectionTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final Answer ALLOW = new Answer(200, "allow");

    private final VirtualClock clock = new VirtualClock();
    private final RecordingListener listener = new RecordingListener();
    private final ScriptedTransport connection = new ScriptedTransport();
    private final List<Answer> callerGot = new ArrayList<>();
    private final EmqxAuthnClient client = new EmqxAuthnClient(1, 1, TIMEOUT, listener, clock, () -> connection);

    private void call() {
        client.authenticate(Buffer.buffer("{}"), callerGot::add);
    }

    @Test
    void aCallTenSecondsAfterTheUnansweredRequestsExpiryGoesOnANewConnection() {
        call(); // sent at 0, expires at 10 s, never answered
        clock.advance(Duration.ofSeconds(20).plusMillis(1));
        call();

        assertEquals(1, connection.reconnects, "the jammed connection was dropped");
        assertEquals(1, listener.jammedConnectionsDropped);
        assertEquals(2, connection.requestsSent, "the new call was sent on the new connection at once");
        connection.answer(ALLOW);
        assertEquals(List.of(Answer.TIMEOUT, ALLOW), callerGot);
    }

    @Test
    void notBeforeTenSecondsHavePassedSinceTheExpiry() {
        call();
        clock.advance(Duration.ofSeconds(20));
        call(); // exactly 10 s after the expiry: ehttpc's test is "more than"

        assertEquals(0, connection.reconnects);
        assertEquals(1, connection.requestsSent, "the call waits behind the unanswered request");
    }

    @Test
    void theInactivityTimerDropsAJammedConnectionWhenNoCallComes() {
        call();
        clock.advance(Duration.ofSeconds(29)); // the 10 s and 20 s checks find it not yet jammed
        assertEquals(0, connection.reconnects);
        clock.advance(Duration.ofSeconds(1)); // the 30 s check

        assertEquals(1, connection.reconnects);
    }

    @Test
    void anAnswerEvenALateOneMeansTheConnectionIsAlive() {
        call();
        clock.advance(Duration.ofSeconds(15));
        connection.answer(ALLOW); // late: dropped unread, but the connection answered
        clock.advance(Duration.ofSeconds(30));
        call();

        assertEquals(0, connection.reconnects);
        assertEquals(2, connection.requestsSent);
    }

    @Test
    void whatTheDroppedConnectionSaysIsNobodysAndIsNotRetried() {
        call();
        clock.advance(Duration.ofSeconds(20).plusMillis(1));
        call(); // drops the connection: the first request fails with it

        assertEquals(2, connection.requestsSent, "the expired request was not sent again");
        assertFalse(callerGot.contains(Answer.TRANSPORT_ERROR));
        assertEquals(0, listener.answers.size());
        assertEquals(1, client.inFlight(), "only the new call is in flight");
    }
}
