package io.deviceidentity.auth.ratelimit;

import static io.deviceidentity.auth.support.TestDevices.directConnection;
import static io.deviceidentity.auth.support.TestDevices.uniqueId;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.agroal.api.AgroalDataSource;
import io.deviceidentity.metrics.MetricNames;
import io.deviceidentity.overload.DatabaseWork;
import io.deviceidentity.overload.Deadline;
import io.deviceidentity.overload.Lane;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.quarkus.test.junit.QuarkusTest;

/**
 * The (client id, source) and per-id failure budgets as several replicas see them: each instance here is one replica's
 * AttemptBudget (its own memory, its own clocks the test moves), all on the real PostgreSQL behind the real PgBouncer
 * with auth-service's own role. Writes happen when the test calls flush(), as the writer thread does every 200 ms.
 */
@QuarkusTest
class SharedAttemptBudgetTest {

    @Inject
    AgroalDataSource reads;

    @Inject
    @io.quarkus.agroal.DataSource("verifiers")
    AgroalDataSource writes;

    @Inject
    @DatabaseWork Lane lane;

    // A day ahead of the service's own budget, whose writer forgets ended windows of its real clock; at the start of a
    // window (a minute), so the test knows how much of the previous one still counts.
    private final AtomicLong wallMillis = new AtomicLong(
            (System.currentTimeMillis() + TimeUnit.DAYS.toMillis(1)) / 60_000 * 60_000);
    private final AtomicLong nanos = new AtomicLong();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @Test
    void twoReplicasShareOneBudget() throws Exception {
        String id = uniqueId("shared");
        AttemptBudget first = replica();
        AttemptBudget second = replica();
        for (int i = 0; i < 10; i++) {
            assertTrue(allows(first, id, "203.0.113.1"));
            first.failed(id, "203.0.113.1");
        }
        assertFalse(allows(first, id, "203.0.113.1"), "the replica that counted them stops at once");
        first.flush();

        assertFalse(allows(second, id, "203.0.113.1"), "the other replica stops too");
        assertTrue(allows(second, id, "198.51.100.2"), "another address of the same device is not stopped");
    }

    @Test
    void aRestartedReplicaKeepsTheBudget() throws Exception {
        String id = uniqueId("restart");
        AttemptBudget before = replica();
        for (int i = 0; i < 10; i++) {
            before.failed(id, "203.0.113.3");
        }
        before.flush();

        AttemptBudget afterRestart = replica();

        assertFalse(allows(afterRestart, id, "203.0.113.3"));
        assertEquals(10, storedFailures(id, "203.0.113.3"));
    }

    @Test
    void manyAddressesTogetherReachTheClientIdsCeiling() throws Exception {
        String id = uniqueId("ceiling");
        List<AttemptBudget> replicas = List.of(replica(), replica());
        for (int address = 0; address < 10; address++) {
            AttemptBudget replica = replicas.get(address % 2);
            for (int i = 0; i < 10; i++) {
                replica.failed(id, "203.0.113." + (10 + address));
            }
            replica.flush();
        }

        AttemptBudget third = replica();
        assertFalse(allows(third, id, "192.0.2.200"), "100 failures from ten addresses: the id's ceiling");
        assertEquals(100, storedFailures(id, "*"));
    }

    @Test
    void aSprayIsWrittenAsOneStatementPerBatchNotOnePerFailure() throws Exception {
        AttemptBudget replica = replica();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            ids.add(uniqueId("spray"));
        }
        for (String id : ids) {
            for (int attempt = 0; attempt < 5; attempt++) {
                replica.failed(id, "203.0.113.50");
            }
        }

        replica.flush();

        // 1000 failures on 400 counters (200 pairs + 200 ids): one statement.
        assertEquals(1.0, registry.get(MetricNames.BUDGET_WRITES).tag(MetricNames.TAG_RESULT, "written").counter()
                .count());
        assertEquals(5, storedFailures(ids.get(123), "203.0.113.50"));
        assertEquals(5, storedFailures(ids.get(123), "*"));
    }

    @Test
    void anotherReplicasFailuresCountOnceThisReplicasViewIsOlderThanTheRefreshInterval() throws Exception {
        String id = uniqueId("refresh");
        AttemptBudget reader = replica();
        AttemptBudget writer = replica();
        assertTrue(allows(reader, id, "203.0.113.60"));
        for (int i = 0; i < 10; i++) {
            writer.failed(id, "203.0.113.60");
        }
        writer.flush();

        assertTrue(allows(reader, id, "203.0.113.60"), "within the refresh interval: the stated bound");
        nanos.addAndGet(TestRateLimits.defaults().refreshInterval().plusMillis(1).toNanos());
        assertFalse(allows(reader, id, "203.0.113.60"), "re-read after the interval");
    }

    @Test
    void theBudgetSlidesBackInsteadOfReturningWholeAtAWindowsEnd() throws Exception {
        String id = uniqueId("window");
        AttemptBudget replica = replica();
        wallMillis.addAndGet(Duration.ofSeconds(50).toMillis());
        for (int i = 0; i < 10; i++) {
            replica.failed(id, "203.0.113.70");
        }
        replica.flush();
        assertFalse(allows(replica, id, "203.0.113.70"));

        wallMillis.addAndGet(Duration.ofSeconds(11).toMillis()); // a second into the next window
        assertFalse(allows(replica, id, "203.0.113.70"), "the previous window still counts almost whole");

        wallMillis.addAndGet(Duration.ofSeconds(30).toMillis()); // half of it is still covered: 5 of 10
        assertTrue(allows(replica, id, "203.0.113.70"));
    }

    private AttemptBudget replica() {
        return new AttemptBudget(TestRateLimits.defaults(), reads, writes, lane, wallMillis::get, nanos::get,
                registry, false);
    }

    private static boolean allows(AttemptBudget budget, String id, String source) throws Exception {
        return budget.allows(id, source, Deadline.after(System.nanoTime(), Duration.ofSeconds(5)))
                .toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    /** The failures every replica stored for (client id, source) ({@code "*"}: the client id's), in all windows. */
    static int storedFailures(String id, String source) throws Exception {
        try (Connection connection = directConnection();
                PreparedStatement query = connection.prepareStatement(
                        "SELECT coalesce(sum(failures), 0) FROM authn_failures WHERE client_id = ? AND source = ?")) {
            query.setString(1, id);
            query.setString(2, source);
            try (ResultSet row = query.executeQuery()) {
                row.next();
                return row.getInt(1);
            }
        }
    }
}
