package io.deviceidentity.registration.kicks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;

import org.junit.jupiter.api.Test;

class RetryBackoffTest {

    private final RetryBackoff backoff = new RetryBackoff(Duration.ofSeconds(1), Duration.ofSeconds(30));

    @Test
    void theWaitDoublesWithEveryFailedAttemptUpToTheMaximum() {
        assertEquals(Duration.ofSeconds(1), backoff.after(1));
        assertEquals(Duration.ofSeconds(2), backoff.after(2));
        assertEquals(Duration.ofSeconds(16), backoff.after(5));
        assertEquals(Duration.ofSeconds(30), backoff.after(6));
        assertEquals(Duration.ofSeconds(30), backoff.after(1_000_000));
    }

    @Test
    void aMaximumBelowTheFirstWaitIsRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> new RetryBackoff(Duration.ofSeconds(5), Duration.ofSeconds(1)));
    }
}
