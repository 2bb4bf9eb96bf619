package io.deviceidentity.auth.authn;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

class ConnectionTurnsTest {

    private final AtomicLong now = new AtomicLong();
    private final ConnectionTurns turns = new ConnectionTurns(Duration.ofMillis(100), now::get);
    private final Object connectionA = new Object();
    private final Object connectionB = new Object();

    @Test
    void aConnectionWhoseRequestWasJustHashedHadItsTurnForTheCooldownOnly() {
        turns.hashed(connectionA);

        assertTrue(turns.hadItsTurn(connectionA));
        assertFalse(turns.hadItsTurn(connectionB), "other connections are next");
        now.addAndGet(Duration.ofMillis(100).toNanos());
        assertFalse(turns.hadItsTurn(connectionA));
    }

    @Test
    void anUnknownConnectionNeverHadItsTurn() {
        turns.hashed(null);

        assertFalse(turns.hadItsTurn(null));
    }
}
