package io.deviceidentity.credentials;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * A standby that is gone costs the reads nothing beyond one failed attempt a second (on a virtual clock): the rule
 * itself, against a real standby, is auth-service's StandbyReadsTest.
 */
class StandbyReadsTest {

    /** A standby nobody can connect to: what a pool reports when HAProxy has no synchronous standby to route to. */
    static final class GoneStandby implements DataSource {
        final AtomicInteger attempts = new AtomicInteger();
        /** Counted down when an attempt waits (the pool's acquisition timeout running); null: fails at once. */
        volatile CountDownLatch waiting;
        /** What a waiting attempt waits for before it fails. */
        final CountDownLatch timeout = new CountDownLatch(1);

        @Override
        public Connection getConnection() throws SQLException {
            attempts.incrementAndGet();
            CountDownLatch attempt = waiting;
            if (attempt != null) {
                attempt.countDown();
                try {
                    timeout.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            throw new SQLException("Acquisition timeout while waiting for new connection", "08001");
        }

        @Override
        public Connection getConnection(String user, String password) throws SQLException {
            return getConnection();
        }

        @Override
        public PrintWriter getLogWriter() {
            return null;
        }

        @Override
        public void setLogWriter(PrintWriter out) {
        }

        @Override
        public void setLoginTimeout(int seconds) {
        }

        @Override
        public int getLoginTimeout() {
            return 0;
        }

        @Override
        public Logger getParentLogger() {
            return Logger.getGlobal();
        }

        @Override
        public <T> T unwrap(Class<T> type) {
            return null;
        }

        @Override
        public boolean isWrapperFor(Class<?> type) {
            return false;
        }
    }

    @Test
    void afterTheStandbyFailedReadsGoToThePrimaryWithoutAskingItForASecond() {
        GoneStandby gone = new GoneStandby();
        AtomicLong now = new AtomicLong(1_000);
        StandbyReads reads = new StandbyReads(gone, new SimpleMeterRegistry(), now::get);
        CredentialRows rows = new CredentialRows(new ObjectMapper());

        assertTrue(reads.find(rows, "device-1", true).isEmpty(), "the primary answers");
        for (int i = 0; i < 100; i++) {
            now.addAndGet(StandbyReads.SKIP_AFTER_FAILURE_NANOS / 200);
            assertTrue(reads.find(rows, "device-1", true).isEmpty());
        }
        assertEquals(1, gone.attempts.get(), "within a second of a failure the standby is not asked again");

        now.addAndGet(StandbyReads.SKIP_AFTER_FAILURE_NANOS);
        assertTrue(reads.find(rows, "device-1", true).isEmpty());
        assertEquals(2, gone.attempts.get(), "a second later it is tried again");
    }

    @Test
    void whileOneReadAsksAStandbyThatIsStillGoneEveryOtherReadGoesToThePrimaryAtOnce() throws Exception {
        GoneStandby gone = new GoneStandby();
        AtomicLong now = new AtomicLong(1_000);
        StandbyReads reads = new StandbyReads(gone, new SimpleMeterRegistry(), now::get);
        CredentialRows rows = new CredentialRows(new ObjectMapper());
        assertTrue(reads.find(rows, "device-1", true).isEmpty(), "failed at once: the primary answers");
        now.addAndGet(StandbyReads.SKIP_AFTER_FAILURE_NANOS);
        gone.waiting = new CountDownLatch(1);

        CompletableFuture<Boolean> probe = CompletableFuture.supplyAsync(() -> reads.find(rows, "device-2", true).isEmpty());
        assertTrue(gone.waiting.await(5, TimeUnit.SECONDS), "one read asks the standby again and waits for its pool");
        for (int i = 0; i < 20; i++) {
            assertTrue(reads.find(rows, "device-3", true).isEmpty());
        }

        assertEquals(2, gone.attempts.get(), "the others did not wait for the standby's pool beside it");
        gone.timeout.countDown();
        assertTrue(probe.get(5, TimeUnit.SECONDS));
        assertTrue(reads.find(rows, "device-4", true).isEmpty());
        assertEquals(2, gone.attempts.get(), "the probe failed: skipped for a second again");
    }
}
