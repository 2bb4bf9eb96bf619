package io.deviceidentity.registration.kicks;

import static io.deviceidentity.registration.support.Devices.api;
import static io.deviceidentity.registration.support.Devices.passwordBody;
import static io.deviceidentity.registration.support.Devices.uniqueId;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.deviceidentity.testsupport.ManagementInterface;
import java.time.Duration;
import java.time.Instant;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.Test;

import io.deviceidentity.metrics.PrometheusText;
import io.deviceidentity.registration.support.FakeEmqx;
import io.deviceidentity.registration.support.Imports;
import io.deviceidentity.testsupport.ForeignBcryptHashes;
import io.deviceidentity.registration.support.KickRows;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/**
 * The whole chain in one application: the API call commits the change and its kick together, the application's
 * own worker delivers it to a server answering as EMQX's clients API, and the metrics and /q/health show it. Waits
 * are for behaviour ("until EMQX was called", bounded generously for a busy machine), never timing claims.
 */
@QuarkusTest
@TestProfile(EmqxApiConfigured.class)
class KickOnChangeTest {

    private static final String PATH = "/v1/devices/{clientId}";

    private static FakeEmqx emqx() {
        return EmqxApiConfigured.emqx;
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        Instant giveUp = Instant.now().plus(Duration.ofSeconds(30));
        while (!condition.getAsBoolean()) {
            assertTrue(Instant.now().isBefore(giveUp), "still not: " + what);
            Thread.sleep(50);
        }
    }

    /** The value of the first sample whose name and labels start with {@code prefix}. */
    private static void register(String id, String password, int status) {
        api().body(passwordBody(password)).put(PATH, id).then().statusCode(status);
    }

    @Test
    void revokingAConnectedDeviceEndsItsSessionOnce() throws Exception {
        String id = uniqueId("kick-revoke");
        register(id, "kick-revoke-machine-password", 201);
        emqx().connect(id);
        api().delete(PATH, id).then().statusCode(204);
        await("EMQX ended the session", () -> !emqx().isConnected(id));
        await("the row is gone", () -> KickRows.pending(id) == 0);
        assertEquals(1, emqx().callsFor(id).size());
        assertEquals(1, emqx().kicked(id));
        // Revoking again changes nothing and kicks nothing.
        api().delete(PATH, id).then().statusCode(204);
        assertEquals(0, KickRows.pending(id));
    }

    @Test
    void replacingADeviceEndsItsSessionButCreatingOneKicksNothing() throws Exception {
        String id = uniqueId("kick-rekey");
        register(id, "kick-rekey-machine-password-1", 201);
        assertEquals(0, KickRows.pending(id), "a new device has no session to end");
        emqx().connect(id);
        register(id, "kick-rekey-machine-password-2", 200);
        await("EMQX ended the session", () -> !emqx().isConnected(id));
        assertEquals(1, emqx().kicked(id));
        assertTrue(emqx().callsFor(id).stream().allMatch(call -> call.path().equals("/api/v5/clients/" + id)
                && call.method().equals("DELETE")));
    }

    @Test
    void anImportThatReplacesADeviceEndsItsSession() throws Exception {
        String id = uniqueId("kick-import");
        register(id, "kick-import-machine-password", 201);
        emqx().connect(id);
        Imports.Answer answer = Imports.post(Imports.line(id, ForeignBcryptHashes.LIBXCRYPT_2B.hash()),
                "?existing=replace");
        assertEquals(200, answer.status());
        await("EMQX ended the session", () -> !emqx().isConnected(id));
        assertEquals(1, emqx().kicked(id));
    }

    @Test
    void aRevocationWhileEmqxIsUnavailableSucceedsAndTheKickFollowsWhenEmqxIsBack() throws Exception {
        String id = uniqueId("kick-unavailable");
        register(id, "kick-unavailable-machine-password", 201);
        emqx().connect(id);
        emqx().unavailable(true);
        try {
            api().delete(PATH, id).then().statusCode(204);
            await("a few attempts refused", () -> emqx().callsFor(id).size() >= 2);
            assertEquals(1, KickRows.pending(id));
            assertTrue(emqx().isConnected(id));
        } finally {
            emqx().unavailable(false);
        }
        await("EMQX ended the session", () -> !emqx().isConnected(id));
        await("the row is gone", () -> KickRows.pending(id) == 0);
        assertEquals(1, emqx().kicked(id));
        String scrape = ManagementInterface.metrics();
        assertTrue(PrometheusText.sum(scrape, "identity_registration_kick_failures_total{reason=\"status_other\"}") >= 2, scrape);
        assertTrue(PrometheusText.sum(scrape, "identity_registration_kicks_delivered_total{result=\"kicked\"}") >= 1, scrape);
        assertEquals(1.0, PrometheusText.sum(scrape, "identity_registration_kicks_enabled"));
    }

    @Test
    void healthNamesTheEmqxApiAndTheBacklog() {
        ManagementInterface.given().get("/q/health").then().statusCode(200)
                .body("checks.find { it.name == 'emqx-kicks' }.data.emqx_api", equalTo(emqx().url()))
                .body("checks.find { it.name == 'emqx-kicks' }.status", equalTo("UP"));
    }
}
