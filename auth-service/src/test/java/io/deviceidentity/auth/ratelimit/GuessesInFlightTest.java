package io.deviceidentity.auth.ratelimit;

import static io.deviceidentity.auth.support.Emqx.authnFrom;
import static io.deviceidentity.auth.support.Emqx.decidedFrom;
import static io.deviceidentity.auth.support.TestDevices.device;
import static io.deviceidentity.auth.support.TestDevices.uniqueId;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.deviceidentity.metrics.MetricNames;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;

/**
 * A sprayer sends its wrong passwords at once (EMQX's connection pool does): once its address has a wrong password
 * charged, the cold checks it has in flight take their guess before the hash, so ten at once over ten registered ids
 * cost at most the one guess it has left, not a hash each. (On the old code the address's budget was charged only
 * after each hash, so every check that arrived while the first was hashing passed and was hashed as far as bcrypt's
 * queue admitted it: 3 hashes in the run that checked it, on a busy machine.)
 */
@QuarkusTest
@TestProfile(GuessesInFlightTest.SprayBudgets.class)
class GuessesInFlightTest {

    /** 8 wrong passwords an hour per address (2 at once): none comes back while the test runs. */
    public static class SprayBudgets implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("identity.auth.rate-limit.period", "1h",
                    "identity.auth.rate-limit.source-guesses", "8");
        }
    }

    @Inject
    MeterRegistry registry;

    @Test
    void wrongPasswordsSentAtOnceGetNoMoreHashesThanTheAddressHasGuessesLeft() throws Exception {
        String sprayer = "198.18.7.7";
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 11; i++) {
            String id = uniqueId("sprayed");
            // A slow hash (cost 12), so that the ten checks are surely in flight together on the old code.
            device(id).password("the-right-password-of-a-sprayed-device").cost(12).store();
            ids.add(id);
        }
        assertEquals("deny", decidedFrom(sprayer, ids.get(0), "wrong-0").jsonPath().getString("result"));
        long hashesBefore = hashes();

        ExecutorService callers = Executors.newFixedThreadPool(10);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Response>> answers = new ArrayList<>();
            for (int i = 1; i <= 10; i++) {
                String id = ids.get(i);
                String guess = "wrong-" + i;
                answers.add(callers.submit(() -> {
                    go.await();
                    return authnFrom(sprayer, id, guess);
                }));
            }
            go.countDown();
            for (Future<Response> answer : answers) {
                Response response = answer.get();
                assertNotEquals("allow", response.jsonPath().getString("result"), response.asString());
            }
        } finally {
            callers.shutdownNow();
        }

        long hashed = hashes() - hashesBefore;
        assertTrue(hashed <= 1, "ten wrong passwords at once cost " + hashed + " hashes; the address had one guess left");
    }

    private long hashes() {
        return registry.find(MetricNames.BCRYPT_DURATION).timer().count();
    }
}
