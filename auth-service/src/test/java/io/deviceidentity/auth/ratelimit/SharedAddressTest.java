package io.deviceidentity.auth.ratelimit;

import static io.deviceidentity.auth.support.Emqx.decidedFrom;
import static io.deviceidentity.auth.support.TestDevices.device;
import static io.deviceidentity.auth.support.TestDevices.uniqueId;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.deviceidentity.metrics.MetricNames;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;

/**
 * Many devices behind one address (a NAT), through the real service, PostgreSQL and PgBouncer, with an address budget
 * of 8 wrong passwords an hour (2 at once). On the old code one id failing over and over took the whole budget: the
 * address's other devices logging in cold with their right passwords were denied, with a body that did not say why,
 * and a wrong password against a cost-14 row cost the budgets what a cost-10 one does.
 */
@QuarkusTest
@TestProfile(GuessesInFlightTest.SprayBudgets.class)
class SharedAddressTest {

    @Inject
    MeterRegistry registry;

    @Test
    void oneIdFailingOverAndOverBehindANatLeavesItsOtherDevicesTheirColdLogins() {
        String nat = address();
        String attacked = uniqueId("nat-attacked");
        device(attacked).password("right-" + attacked).store();
        List<String> cold = new ArrayList<>();
        List<String> passwords = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            String id = uniqueId("nat-cold");
            cold.add(id);
            passwords.add(device(id).password("right-" + id).store());
        }

        for (int i = 0; i < 20; i++) {
            assertEquals("deny", decidedFrom(nat, attacked, "guess-" + i).jsonPath().getString("result"));
        }

        for (int i = 0; i < cold.size(); i++) {
            Response answer = decidedFrom(nat, cold.get(i), passwords.get(i));
            assertEquals("allow", answer.jsonPath().getString("result"),
                    "cold device " + i + " of 10 behind the attacker's address: " + answer.asString());
        }
    }

    @Test
    void aBudgetsDenialNamesItsReasonInTheBodyAndIsCountedByIt() {
        String nat = address();
        String attacked = uniqueId("reason");
        device(attacked).password("right-" + attacked).store();
        double before = outcomes("guesses_exhausted");

        Response last = null;
        for (int i = 0; i < 5; i++) {
            last = decidedFrom(nat, attacked, "guess-" + i);
        }

        assertEquals("{\"result\":\"deny\",\"reason\":\"guesses_exhausted\"}", last.asString(),
                "the attacked id's share of the address is spent after two wrong passwords");
        assertEquals("application/json", last.contentType().split(";")[0]);
        assertEquals(before + 3, outcomes("guesses_exhausted"));
        assertEquals("{\"result\":\"deny\"}", decidedFrom(nat, attacked + "-x", "x").asString(),
                "an unknown device's denial says nothing more than before");
    }

    @Test
    void aWrongPasswordAgainstACost14RowIsCharged16() throws Exception {
        String source = address();
        String dear = uniqueId("cost14");
        device(dear).password("right-" + dear).cost(14).store();

        Response first = decidedFrom(source, dear, "guess-1");
        assertEquals("{\"result\":\"deny\"}", first.asString(), "a wrong password, hashed");
        awaitStoredFailures(dear, source, 16);

        Response second = decidedFrom(source, dear, "guess-2");
        assertEquals("{\"result\":\"deny\",\"reason\":\"attempts_exhausted\"}", second.asString(),
                "16 of the pair's 10 spent by one cost-14 guess: the next is refused without a hash");
    }

    private static void awaitStoredFailures(String id, String source, int expected) throws Exception {
        int stored = 0;
        for (int i = 0; i < 100 && stored < expected; i++) {
            Thread.sleep(100); // the writer shares failures every 200 ms
            stored = SharedAttemptBudgetTest.storedFailures(id, source);
        }
        assertEquals(expected, stored, "failures stored for (" + id + ", " + source + ")");
    }

    private double outcomes(String reason) {
        Counter counter = registry.find(MetricNames.AUTHN_OUTCOMES).tag(MetricNames.TAG_RESULT, "deny")
                .tag(MetricNames.TAG_REASON, reason).counter();
        return counter == null ? 0 : counter.count();
    }

    /** A documentation address (RFC 5737) of this test alone. */
    private static String address() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        return "198.19." + random.nextInt(256) + "." + random.nextInt(1, 255);
    }
}
