package io.deviceidentity.registration.kicks;

import static io.deviceidentity.registration.support.Devices.api;
import static io.deviceidentity.registration.support.Devices.passwordBody;
import static io.deviceidentity.registration.support.Devices.uniqueId;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.deviceidentity.testsupport.ManagementInterface;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.agroal.api.AgroalDataSource;
import io.deviceidentity.registration.support.FakeEmqx;
import io.deviceidentity.registration.support.KickRows;
import io.deviceidentity.registration.support.ManualClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.quarkus.test.junit.QuarkusTest;

/**
 * The kick outbox's delivery over the real PostgreSQL + PgBouncer, to a server answering as EMQX's clients API
 * (FakeEmqx), with worker instances built here on a manual clock: each "replica" or "restart" is a new
 * KickDelivery over the same database, as a new process would be. This application runs without an EMQX API
 * (the test profile's default), so its own worker sends nothing and its revocations record no kick.
 */
@QuarkusTest
class KickDeliveryTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    @Inject
    AgroalDataSource dataSource;

    private final FakeEmqx emqx = new FakeEmqx("kick-key", "kick-secret");
    private final ManualClock clock = new ManualClock(Instant.now());
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final KickMetrics metrics = new KickMetrics(registry, clock, true);

    @BeforeEach
    void emptyOutbox() {
        KickRows.clear();
    }

    @AfterEach
    void stopEmqx() {
        emqx.close();
    }

    /** A fresh worker over the same database: another replica, or this one after a restart. */
    private KickDelivery replica(Duration timeout) {
        return new KickDelivery(new KickOutbox(dataSource), new EmqxClientsApi(emqx.url(), "kick-key", "kick-secret",
                timeout), metrics, clock, new RetryBackoff(Duration.ofSeconds(1), Duration.ofSeconds(30)), timeout, 16);
    }

    private double counter(String name, String tag, String value) {
        return registry.get(name).tag(tag, value).counter().count();
    }

    @Test
    void aKickRecordedBeforeACrashIsDeliveredOnceByTheNextWorker() throws Exception {
        String id = uniqueId("kick-crash-before");
        emqx.connect(id);
        KickRows.recordRevocation(id); // committed; the process that wrote it died before its worker ran
        assertEquals(1, replica(TIMEOUT).deliverDue());
        assertEquals(0, replica(TIMEOUT).deliverDue(), "nothing left for a second replica");
        assertEquals(1, emqx.kicked(id));
        assertEquals(1, emqx.callsFor(id).size());
        assertEquals(0, KickRows.pending(id));
        assertEquals(1.0, counter("identity.registration.kicks.delivered", "result", "kicked"));
    }

    @Test
    void aWorkerThatDiesAfterItsClaimLeavesTheKickToAnotherOneWhenTheLeaseEnds() throws Exception {
        String id = uniqueId("kick-crash-claimed");
        emqx.connect(id);
        KickRows.recordRevocation(id);
        // The first replica claims and dies before calling EMQX.
        new KickOutbox(dataSource).claim(clock.instant(), clock.instant().plus(Duration.ofSeconds(15)), 16);
        KickDelivery survivor = replica(TIMEOUT);
        assertEquals(0, survivor.deliverDue(), "claimed by a replica that may still be delivering it");
        assertTrue(emqx.calls().isEmpty());
        clock.advance(Duration.ofSeconds(16));
        assertEquals(1, survivor.deliverDue());
        assertEquals(1, emqx.kicked(id));
        assertEquals(0, KickRows.pending(id));
    }

    @Test
    void aWorkerThatDiesAfterEmqxKickedButBeforeDeletingTheRowMakesASecondCallThatFindsNobody() throws Exception {
        String id = uniqueId("kick-crash-after");
        emqx.connect(id);
        KickRows.recordRevocation(id);
        // EMQX ended the session, but the answer never reached a worker that could delete the row.
        new KickOutbox(dataSource).claim(clock.instant(), clock.instant().plus(Duration.ofSeconds(15)), 16);
        new EmqxClientsApi(emqx.url(), "kick-key", "kick-secret", TIMEOUT).kick(id).join();
        clock.advance(Duration.ofSeconds(16));
        assertEquals(1, replica(TIMEOUT).deliverDue());
        assertEquals(List.of(204, 404), emqx.callsFor(id).stream().map(FakeEmqx.Call::status).toList());
        assertEquals(1, emqx.kicked(id), "the session was ended once");
        assertEquals(0, KickRows.pending(id));
        assertEquals(1.0, counter("identity.registration.kicks.delivered", "result", "not_connected"));
    }

    @Test
    void emqxDownDuringTheRevocationIsRetriedWithGrowingWaitsUntilItIsBack() throws Exception {
        String id = uniqueId("kick-emqx-down");
        emqx.connect(id);
        emqx.stop();
        KickRows.recordRevocation(id);
        KickDelivery worker = replica(TIMEOUT);

        assertEquals(1, worker.deliverDue()); // attempt 1: refused; next in 1 s
        assertEquals(0, worker.deliverDue(), "not due again before its backoff");
        clock.advance(Duration.ofMillis(1000));
        assertEquals(1, worker.deliverDue()); // attempt 2: refused; next in 2 s
        clock.advance(Duration.ofMillis(1999));
        assertEquals(0, worker.deliverDue());
        clock.advance(Duration.ofMillis(1));
        assertEquals(1, worker.deliverDue()); // attempt 3: refused; next in 4 s
        assertEquals(3.0, counter("identity.registration.kick.failures", "reason", "unreachable"));
        assertEquals(1, KickRows.pending(id));
        worker.refreshBacklog();
        assertEquals(1.0, registry.get("identity.registration.kicks.pending").gauge().value());

        emqx.restart();
        clock.advance(Duration.ofSeconds(4));
        assertEquals(1, worker.deliverDue());
        assertEquals(1, emqx.kicked(id));
        assertFalse(emqx.isConnected(id));
        worker.refreshBacklog();
        assertEquals(0.0, registry.get("identity.registration.kicks.pending").gauge().value());
    }

    @Test
    void aSlowEmqxThatKickedAfterTheTimeoutIsAskedAgainAndAnswersNothingToKick() throws Exception {
        String id = uniqueId("kick-emqx-slow");
        emqx.connect(id);
        emqx.holdAnswers();
        KickRows.recordRevocation(id);
        KickDelivery worker = replica(Duration.ofMillis(300));
        assertEquals(1, worker.deliverDue());
        assertEquals(1.0, counter("identity.registration.kick.failures", "reason", "timeout"));
        assertEquals(1, KickRows.pending(id), "no answer, so not known to be delivered");
        emqx.release();
        clock.advance(Duration.ofSeconds(1));
        assertEquals(1, replica(TIMEOUT).deliverDue());
        assertEquals(1, emqx.kicked(id), "ended once, by the slow call");
        assertEquals(0, KickRows.pending(id));
    }

    @Test
    void twoReplicasDeliveringAtOnceSendEachKickOnce() throws Exception {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            String id = uniqueId("kick-replicas-" + i);
            ids.add(id);
            emqx.connect(id);
            KickRows.recordRevocation(id);
        }
        CountDownLatch start = new CountDownLatch(1);
        List<CompletableFuture<Void>> replicas = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
            KickDelivery replica = replica(TIMEOUT);
            replicas.add(CompletableFuture.runAsync(() -> {
                try {
                    start.await();
                    while (replica.deliverDue() > 0) {
                        // until nothing is due
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        start.countDown();
        CompletableFuture.allOf(replicas.toArray(CompletableFuture[]::new)).join();
        for (String id : ids) {
            assertEquals(1, emqx.callsFor(id).size(), "calls for " + id);
            assertEquals(1, emqx.kicked(id));
            assertEquals(0, KickRows.pending(id));
        }
    }

    @Test
    void withoutAnEmqxApiARevocationRecordsNoKickAndHealthSaysSo() {
        String id = uniqueId("kick-not-configured");
        api().body(passwordBody("kick-not-configured-pw")).put("/v1/devices/{id}", id).then().statusCode(201);
        api().body(passwordBody("kick-not-configured-pw2")).put("/v1/devices/{id}", id).then().statusCode(200);
        api().delete("/v1/devices/{id}", id).then().statusCode(204);
        assertEquals(0, KickRows.pending(id));
        ManagementInterface.given().get("/q/health").then().statusCode(200)
                .body("checks.find { it.name == 'emqx-kicks' }.data.emqx_api", equalTo("not configured"));
    }
}
