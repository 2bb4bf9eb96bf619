package io.deviceidentity.loadtest.fastpath;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class PgbenchResultTest {

    /** What PostgreSQL 15's pgbench printed for the credential query through PgBouncer. */
    static final String OUTPUT = """
            pgbench (15.18 (Debian 15.18-0+deb12u1))
            transaction type: benchmarks/pgbench/credential-select.sql
            scaling factor: 1
            query mode: simple
            number of clients: 10
            number of threads: 1
            maximum number of tries: 1
            duration: 5 s
            number of transactions actually processed: 22309
            number of failed transactions: 0 (0.000%)
            latency average = 1.947 ms
            initial connection time = 658.226 ms
            tps = 5135.850604 (without initial connection time)
            """;

    @Test
    void readsModeClientsThroughputAndLatency() {
        PgbenchResult result = PgbenchResult.parse("simple-c10", OUTPUT);
        assertEquals(new PgbenchResult("simple-c10", "simple", 10, 1, 22309, 0, 1.947, 5135.850604), result);
    }

    @Test
    void aRunWithoutItsThroughputLineIsAnError() {
        assertThrows(IllegalArgumentException.class, () -> PgbenchResult.parse("broken",
                "pgbench: error: connection to server at \"127.0.0.1\", port 56434 failed\n"));
    }
}
