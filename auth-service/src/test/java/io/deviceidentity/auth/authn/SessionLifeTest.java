package io.deviceidentity.auth.authn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;

import org.junit.jupiter.api.Test;

class SessionLifeTest {

    private static final Instant NOW = Instant.parse("2026-12-01T12:00:00.750Z");
    private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);

    @Test
    void anAllowEndsAtMostTheMaximumLifeFromNowInUnixSeconds() {
        SessionLife life = new SessionLife(Duration.ofHours(24), CLOCK, () -> 0.0);
        assertEquals(NOW.getEpochSecond() + 86_400, life.expireAt());
    }

    @Test
    void theSpreadTakesAtMostATenthOff() {
        SessionLife life = new SessionLife(Duration.ofHours(24), CLOCK, () -> 0.999_999_9);
        assertEquals(NOW.getEpochSecond() + 86_400 - 8_640, life.expireAt(), 1);
    }

    @Test
    void zeroMeansSessionsAreNotBounded() {
        assertNull(new SessionLife(Duration.ZERO, CLOCK, () -> 0.5).expireAt());
    }

    @Test
    void aLifeTooShortForClockSkewOrNegativeIsRefusedAtStart() {
        assertThrows(IllegalArgumentException.class, () -> new SessionLife(Duration.ofSeconds(30), CLOCK, () -> 0));
        assertThrows(IllegalArgumentException.class, () -> new SessionLife(Duration.ofHours(-1), CLOCK, () -> 0));
    }
}
