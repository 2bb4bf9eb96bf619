package io.deviceidentity.loadtest.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.InputStream;
import java.time.Instant;

import org.junit.jupiter.api.Test;

/**
 * The top frames of a recording's execution samples, from eleven events of a real recording (JDK 17,
 * settings=profile) printed by {@code jfr print --events jdk.ExecutionSample --stack-depth 1 --json}: threads named as
 * auth-service names its bcrypt and event-loop threads, and the main thread.
 */
class JfrTopTest {

    private static JfrTop.Counts count(Instant from) throws Exception {
        try (InputStream in = JfrTopTest.class.getResourceAsStream("/bench/jfr/execution-samples.json")) {
            return JfrTop.count(in, from);
        }
    }

    @Test
    void theTopFramesAndTheThreadGroupsAreCounted() throws Exception {
        assertEquals("""
                execution samples: 11
                   share  samples  top frame
                   36.4%        4  java.lang.Long.getChars
                   27.3%        3  java.lang.Integer.getChars
                   18.2%        2  java.lang.Long.toString
                    9.1%        1  Named.parse
                   share  samples  thread group
                   54.5%        6  bcrypt
                   36.4%        4  event loop
                    9.1%        1  other
                """, JfrTop.report(count(null), 4));
    }

    @Test
    void samplesBeforeTheWindowAreLeftOut() throws Exception {
        JfrTop.Counts counts = count(Instant.parse("2026-12-07T03:07:58.512342164Z"));
        assertEquals(6, counts.samples());
        assertEquals(3L, counts.frames().get("java.lang.Long.getChars"));
        assertEquals(3L, counts.groups().get("event loop"));
    }
}
