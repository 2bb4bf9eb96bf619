package io.deviceidentity.auth.overload;

import static io.deviceidentity.auth.support.Emqx.authn;
import static io.deviceidentity.auth.support.TestDevices.device;
import static io.deviceidentity.auth.support.TestDevices.directConnection;
import static io.deviceidentity.auth.support.TestDevices.uniqueId;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.agroal.api.AgroalDataSource;
import io.deviceidentity.auth.support.BcryptSaturation;
import io.deviceidentity.credentials.CredentialFinder;
import io.deviceidentity.overload.BcryptWork;
import io.deviceidentity.overload.DatabaseWork;
import io.deviceidentity.overload.Lane;
import io.deviceidentity.overload.PooledConnections;
import io.deviceidentity.overload.ServiceUnavailableException;
import io.deviceidentity.overload.UnavailableReason;
import io.deviceidentity.testsupport.WarmPool;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.smallrye.faulttolerance.api.CircuitBreakerMaintenance;
import io.smallrye.faulttolerance.api.CircuitBreakerState;

/**
 * The order of checks under saturation, made deterministic by occupying the limits from the test itself instead of
 * by timing a burst: a saturated bcrypt lane turns only the answers that need bcrypt into {@code overload};
 * a database step with no free thread is refused at once instead of waiting anywhere; and neither opens the circuit
 * breaker, which keeps meaning "database down".
 */
@QuarkusTest
class SaturationAnswersTest {

    @Inject
    @BcryptWork Lane bcrypt;

    @Inject
    @DatabaseWork Lane database;

    @Inject
    CredentialFinder finder;

    @Inject
    CircuitBreakerMaintenance breakers;

    @Inject
    AgroalDataSource pool;

    /** The held reads below must each get a connection within the 1 s acquisition timeout, also on a busy machine. */
    @BeforeEach
    void openEveryPooledConnection() throws SQLException {
        WarmPool.open(pool, pool.getConfiguration().connectionPoolConfiguration().maxSize());
    }

    @Test
    void whileBcryptIsSaturatedUnknownRevokedAndGuessedAtDevicesKeepTheirAnswers() {
        String known = uniqueId("saturated-known");
        String knownPassword = device(known).store();
        String revoked = uniqueId("saturated-revoked");
        String revokedPassword = device(revoked).revoked().store();
        String guessed = uniqueId("saturated-guessed");
        CountDownLatch release = new CountDownLatch(1);
        List<CompletableFuture<Boolean>> occupied = BcryptSaturation.saturate(bcrypt, release);
        try {
            Response overloaded = authn(known, knownPassword);
            assertEquals(503, overloaded.statusCode(), overloaded.asString());
            assertEquals("overload", overloaded.jsonPath().getString("reason"));

            Response unknown = authn(uniqueId("saturated-unknown"), "some-password");
            assertEquals(200, unknown.statusCode(), unknown.asString());
            assertEquals("deny", unknown.jsonPath().getString("result"));

            Response revokedAnswer = authn(revoked, revokedPassword);
            assertEquals(200, revokedAnswer.statusCode(), revokedAnswer.asString());
            assertEquals("deny", revokedAnswer.jsonPath().getString("result"));

            // An id tried again and again is denied each time (a failure budget answers deny too), never 429.
            for (int i = 0; i < 11; i++) {
                Response again = authn(guessed, "some-password");
                assertEquals(200, again.statusCode(), again.asString());
                assertEquals("deny", again.jsonPath().getString("result"));
            }
        } finally {
            release.countDown();
        }
        // Released, they run or (having waited past the allowance) are refused: either way, they finish.
        occupied.forEach(task -> task.handle((value, failure) -> true).join());
        assertEquals("allow", authn(known, knownPassword).jsonPath().getString("result"));
    }

    @Test
    void aDeviceWhoseCheckNeededBcryptMomentsAgoIsRefusedWithoutADatabaseReadWhileBcryptIsSaturated()
            throws Exception {
        String id = uniqueId("seen-active");
        String password = device(id).store();
        CountDownLatch release = new CountDownLatch(1);
        List<CompletableFuture<Boolean>> occupied = BcryptSaturation.saturate(bcrypt, release);
        // Read as active, no verifier yet: it needs bcrypt, which refuses it. Remembered as such.
        assertEquals("overload", authn(id, password).jsonPath().getString("reason"));
        try (Connection locker = directConnection()) {
            locker.setAutoCommit(false);
            try (Statement lock = locker.createStatement()) {
                lock.execute("LOCK TABLE device_credentials IN ACCESS EXCLUSIVE MODE");
            }
            // Any read would now wait for the lock: an answer before the rollback means there was none.
            Response refused = authn(id, password);
            assertEquals(503, refused.statusCode(), refused.asString());
            assertEquals("overload", refused.jsonPath().getString("reason"));
            locker.rollback();
        } finally {
            release.countDown();
        }
        occupied.forEach(task -> task.handle((value, failure) -> true).join());
    }

    @Test
    void aDeviceSeenForTheFirstTimeWhileBcryptIsSaturatedIsRefusedWithoutReadingItsFailureBudget() throws Exception {
        String id = uniqueId("first-seen");
        String password = device(id).store();
        CountDownLatch release = new CountDownLatch(1);
        List<CompletableFuture<Boolean>> occupied = BcryptSaturation.saturate(bcrypt, release);
        try (Connection locker = directConnection()) {
            locker.setAutoCommit(false);
            try (Statement lock = locker.createStatement()) {
                lock.execute("LOCK TABLE authn_failures IN ACCESS EXCLUSIVE MODE");
            }
            // Its credential is read (that table is free); a read of its budget would wait for the lock inside
            // PostgreSQL, where it stays visible until the rollback, whatever the service does meanwhile.
            CompletableFuture<Response> answer = CompletableFuture.supplyAsync(() -> authn(id, password));
            while (!answer.isDone()) {
                assertEquals(0, lockWaitersOn(locker, "authn_failures"), "the failure budget was read");
                Thread.sleep(10);
            }
            Response refused = answer.join();
            assertEquals(503, refused.statusCode(), refused.asString());
            assertEquals("overload", refused.jsonPath().getString("reason"));
            assertEquals(0, lockWaitersOn(locker, "authn_failures"), "the failure budget was read");
            locker.rollback();
        } finally {
            release.countDown();
        }
        occupied.forEach(task -> task.handle((value, failure) -> true).join());
        // With bcrypt free again the budget is read and the device allowed.
        assertEquals("allow", authn(id, password).jsonPath().getString("result"));
    }

    private static int lockWaitersOn(Connection connection, String table) throws SQLException {
        try (Statement query = connection.createStatement();
                var count = query.executeQuery("SELECT count(*) FROM pg_locks WHERE NOT granted"
                        + " AND relation = '" + table + "'::regclass")) {
            count.next();
            return count.getInt(1);
        }
    }

    @Test
    void aRequestFindingEveryDatabaseThreadHeldByALockIsRefusedAtOnceNamingTheDatabaseAndTheBreakerStaysClosed()
            throws Exception {
        // Devices this replica has read already (known to exist: their reads may take every thread, where unknown ids
        // get only the unreserved ones), presenting another username: their answer (deny) needs the read and
        // nothing else.
        List<String> known = new ArrayList<>();
        for (int i = 0; i < database.concurrency(); i++) {
            String id = uniqueId("lane-full");
            device(id).username("registered-name").store();
            assertEquals("deny", authn(id, "x").jsonPath().getString("result"));
            known.add(id);
        }
        List<CompletableFuture<Response>> held = new ArrayList<>();
        // An exclusive lock makes every read wait inside PostgreSQL: the reads hold the lane's threads.
        try (Connection locker = directConnection()) {
            locker.setAutoCommit(false);
            try (Statement lock = locker.createStatement()) {
                lock.execute("LOCK TABLE device_credentials IN ACCESS EXCLUSIVE MODE");
            }
            ExecutorService callers = Executors.newFixedThreadPool(database.concurrency());
            for (String id : known) {
                held.add(CompletableFuture.supplyAsync(() -> authn(id, "x"), callers));
            }
            callers.shutdown();
            awaitLockWaiters(database.concurrency());

            // Answered while the lock still holds: had it been queued, it could only finish after the rollback. The
            // threads' reads wait inside PostgreSQL: once they have waited longer than a read ever takes, the refusal
            // names the database (which does not answer), not this service's capacity; before that it is overload.
            String reason = "overload";
            for (int i = 0; i < 200 && !"backend_unavailable".equals(reason); i++) {
                Response refused = authn(uniqueId("lane-full-probe"), "x");
                assertEquals(503, refused.statusCode(), refused.asString());
                reason = refused.jsonPath().getString("reason");
                assertTrue(Set.of("overload", "backend_unavailable").contains(reason), refused.asString());
                Thread.sleep(10);
            }
            for (int i = 0; i < 12; i++) {
                Response refused = authn(uniqueId("lane-full-probe"), "x");
                assertEquals(503, refused.statusCode(), refused.asString());
                assertEquals("backend_unavailable", refused.jsonPath().getString("reason"), refused.asString());
            }
            assertEquals(CircuitBreakerState.CLOSED, breakers.currentState("credential-finder"));
            locker.rollback();
        }
        for (CompletableFuture<Response> answer : held) {
            Response read = answer.get(10, TimeUnit.SECONDS);
            assertEquals(200, read.statusCode(), read.asString());
            assertEquals("deny", read.jsonPath().getString("result"));
        }
    }

    @Test
    void aWaitOnThePoolWithIdleConnectionsIsTheDatabasePathsAndOneForConnectionsLentOutIsNot() throws SQLException {
        // What tells a wait on the database (validating an idle connection through PgBouncer, reopening one it lost)
        // from a wait for this service's own holders: the pool's counts, which the configured pool must keep.
        var configuration = pool.getConfiguration().connectionPoolConfiguration();
        assertEquals(configuration.maxSize(), configuration.minSize(), "the pool may grow for a burst");
        assertTrue(PooledConnections.waitIsTheDatabasePaths(pool), "idle connections to lend: a wait validates one");
        List<Connection> lent = new ArrayList<>();
        try {
            while (lent.size() < configuration.maxSize()) {
                lent.add(pool.getConnection());
            }
            assertFalse(PooledConnections.waitIsTheDatabasePaths(pool), "every connection lent out to this service");
        } finally {
            for (Connection connection : lent) {
                connection.close();
            }
        }
    }

    @Test
    void aReadBeyondThePoolOutsideTheLaneIsRefusedAsOverloadAndNeverOpensTheBreaker() throws Exception {
        String id = uniqueId("pool-full");
        device(id).store();
        int connections = pool.getConfiguration().connectionPoolConfiguration().maxSize();
        int extra = 12; // more than the breaker's request volume threshold (10): all-failures would open it
        List<CompletableFuture<Object>> held = new ArrayList<>();
        List<CompletableFuture<Object>> refused = new ArrayList<>();
        try (Connection locker = directConnection()) {
            locker.setAutoCommit(false);
            try (Statement lock = locker.createStatement()) {
                lock.execute("LOCK TABLE device_credentials IN ACCESS EXCLUSIVE MODE");
            }
            // Called directly (not through the lane), so that only the pool stands in the way: every connection is
            // held by a read waiting for the lock, and the extra reads wait for one until the acquisition timeout.
            ExecutorService callers = Executors.newFixedThreadPool(connections + extra);
            for (int i = 0; i < connections; i++) {
                held.add(CompletableFuture.supplyAsync(() -> find(id), callers));
            }
            awaitLockWaiters(connections);
            for (int i = 0; i < extra; i++) {
                refused.add(CompletableFuture.supplyAsync(() -> find(id), callers));
            }
            callers.shutdown();
            for (CompletableFuture<Object> read : refused) {
                Object result = read.get(10, TimeUnit.SECONDS);
                assertTrue(result instanceof ServiceUnavailableException unavailable
                        && unavailable.reason() == UnavailableReason.OVERLOAD, String.valueOf(result));
            }
            assertEquals(CircuitBreakerState.CLOSED, breakers.currentState("credential-finder"));
            locker.rollback();
        }
        for (CompletableFuture<Object> read : held) {
            Object result = read.get(10, TimeUnit.SECONDS);
            assertTrue(result instanceof java.util.Optional<?> found && found.isPresent(), String.valueOf(result));
        }
    }

    /** The read's result, or what it threw. */
    private Object find(String id) {
        try {
            return finder.find(id, false);
        } catch (Exception e) {
            return e;
        }
    }

    /** Waits (bounded) until PostgreSQL shows {@code count} sessions waiting for the table lock. */
    private static void awaitLockWaiters(int count) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        int waiting = 0;
        try (Connection observer = directConnection()) {
            while (System.nanoTime() < until) {
                try (Statement query = observer.createStatement();
                        var rows = query.executeQuery("SELECT count(*) FROM pg_locks WHERE NOT granted"
                                + " AND relation = 'device_credentials'::regclass")) {
                    rows.next();
                    waiting = rows.getInt(1);
                }
                if (waiting >= count) {
                    return;
                }
                Thread.sleep(20);
            }
        }
        throw new AssertionError("only " + waiting + " reads reached the lock");
    }
}
