package io.deviceidentity.auth.ratelimit;

import static io.deviceidentity.auth.support.Emqx.authnFrom;
import static io.deviceidentity.auth.support.TestDevices.device;
import static io.deviceidentity.auth.support.TestDevices.uniqueId;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.ThreadLocalRandom;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.deviceidentity.auth.authn.RecentlyActiveDevices;
import io.deviceidentity.auth.support.StoredRows;
import io.deviceidentity.metrics.MetricNames;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;

/**
 * Nobody can make a device that presents its correct credential fail by failing under its client id (docs/security.md,
 * "The adversary"), through the real service, PostgreSQL and PgBouncer. On the old per-client-id limit every one of
 * these failed: ten wrong passwords from anywhere made the real device get 429, which EMQX reads as "ignore".
 */
@QuarkusTest
@TestProfile(HourlyBudgets.class)
class NoLockoutTest {

    private static final String KEY_ID = "test-1";

    @Inject
    MeterRegistry registry;

    @Inject
    RecentlyActiveDevices recentlyActive;

    @Test
    void wrongPasswordsFromAnotherAddressStopNeitherTheFastPathNorAColdCheck() throws Exception {
        String id = uniqueId("target");
        String password = device(id).password("right-" + id).store();
        String home = address();
        String attacker = address();
        assertAnswer(() -> authnFrom(home, id, password), "allow", "ok");
        StoredRows.awaitVerifier(id, KEY_ID);

        int exhausted = attack(id, attacker, 30);

        assertEquals(20, exhausted, "30 wrong guesses: 10 cost a bcrypt, 20 were denied attempts_exhausted without");
        assertFalse(recentlyActive.contains(id), "the guesses did not mark the device for bcrypt's early refusal, "
                + "which would answer its fast-path logins 503 while bcrypt is saturated");
        assertAnswer(() -> authnFrom(home, id, password), "allow", "verified");
        forgetVerifier(id);
        assertAnswer(() -> authnFrom(home, id, password), "allow", "ok");
    }

    @Test
    void wrongPasswordsFromTheDevicesOwnAddressStopGuessingButNotTheFastPath() throws Exception {
        String id = uniqueId("shared-nat");
        String password = device(id).password("right-" + id).store();
        String nat = address();
        assertAnswer(() -> authnFrom(nat, id, password), "allow", "ok");
        StoredRows.awaitVerifier(id, KEY_ID);

        attack(id, nat, 30);

        assertAnswer(() -> authnFrom(nat, id, password), "allow", "verified");
        // Without a verifier the service cannot tell the right password from a guess without bcrypt, which is what
        // the budget refuses: a device that never logged in (or was just re-keyed) waits for the window to end
        // (documented). Still 200 deny, which ends EMQX's chain.
        forgetVerifier(id);
        assertAnswer(() -> authnFrom(nat, id, password), "deny", "attempts_exhausted");
    }

    @Test
    void manyAddressesTogetherReachTheCeilingWithoutStoppingTheFastPath() throws Exception {
        String id = uniqueId("ceiling");
        String password = device(id).password("right-" + id).store();
        String home = address();
        assertAnswer(() -> authnFrom(home, id, password), "allow", "ok");
        StoredRows.awaitVerifier(id, KEY_ID);

        for (int i = 0; i < 10; i++) {
            attack(id, address(), 10);
        }

        assertAnswer(() -> authnFrom(address(), id, "one-more-guess"), "deny", "attempts_exhausted");
        assertAnswer(() -> authnFrom(home, id, password), "allow", "verified");
    }

    @Test
    void aRevokedDeviceIsOnlyEverDenied() {
        String id = uniqueId("revoked");
        String password = device(id).password("right-" + id).revoked().store();
        String[] addresses = {address(), address(), address()};

        for (int i = 0; i < 45; i++) {
            Response answer = authnFrom(addresses[i % 3], id, i % 2 == 0 ? password : "guess-" + i);
            assertEquals(200, answer.statusCode(), "attempt " + i);
            assertEquals("deny", answer.jsonPath().getString("result"), "attempt " + i);
        }
    }

    /** {@code count} wrong passwords for {@code id} from {@code source}, each decided 200 deny. Returns how many
     * were denied attempts_exhausted (no bcrypt). */
    private int attack(String id, String source, int count) {
        double before = outcomes("deny", "attempts_exhausted");
        int decided = 0;
        for (int i = 0; decided < count && i < count * 5; i++) {
            Response answer = authnFrom(source, id, "guess-" + i);
            // A budget answers 200 deny, never 429 (nor 503: the budgets refuse nothing with it). A 503 overload or
            // deadline can only come from bcrypt's admission on a machine busy with other work: such a guess was
            // never checked, so it is sent again, as an attacker would.
            assertTrue(answer.statusCode() == 200 || answer.statusCode() == 503, answer.asString());
            if (answer.statusCode() == 200) {
                assertEquals("deny", answer.jsonPath().getString("result"));
                decided++;
            }
        }
        assertEquals(count, decided, "guesses decided");
        return (int) (outcomes("deny", "attempts_exhausted") - before);
    }

    /** Sends nothing itself: {@code call} is the request, so the outcome counter is read before it. */
    private void assertAnswer(java.util.function.Supplier<Response> call, String result, String reason) {
        double before = outcomes(result, reason);
        Response answer = call.get();
        // A cold check may be refused 503 by bcrypt's admission on a busy machine: "not now", which a device retries
        // (Emqx.decidedFrom).
        for (int retry = 0; retry < 20 && answer.statusCode() == 503; retry++) {
            answer = call.get();
        }
        assertEquals(200, answer.statusCode(), answer.asString());
        assertEquals(result, answer.jsonPath().getString("result"), answer.asString());
        assertEquals(before + 1, outcomes(result, reason), result + ", but not as '" + reason + "'");
    }

    private double outcomes(String result, String reason) {
        Counter counter = registry.find(MetricNames.AUTHN_OUTCOMES).tag(MetricNames.TAG_RESULT, result)
                .tag(MetricNames.TAG_REASON, reason).counter();
        return counter == null ? 0 : counter.count();
    }

    private static void forgetVerifier(String id) {
        StoredRows.update("UPDATE device_credentials SET verifier_key_id = NULL, verifier = NULL WHERE client_id = ?",
                id);
    }

    /** A documentation address (RFC 5737) of this test alone. */
    private static String address() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        return "198.18." + random.nextInt(256) + "." + random.nextInt(1, 255);
    }
}
