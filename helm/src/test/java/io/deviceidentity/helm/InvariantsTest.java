package io.deviceidentity.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Every invariant of the chain is refused with a message that names the numbers and the values to change
 * (docs/kubernetes.md), and the schema refuses values of the wrong shape.
 */
class InvariantsTest {

    @Test
    void worstCaseAnswerAtOrAboveEmqxRequestTimeoutIsRefused() {
        // 8 s deadline + 100 ms x 2 + 1 s write margin = 9.2 s, against a 9 s request_timeout.
        String message = Chart.refusal(Chart.set("authService.overload.deadline", "8s", "emqx.authn.requestTimeout", "9s",
                "emqx.authz.requestTimeout", "30s"));
        assertMentions(message, "timeouts:", "deadline 8000ms", "one bcrypt 200ms", "write margin 1000ms", "= 9200ms",
                "request_timeout 9000ms", "authService.overload.deadline", "emqx.authn.requestTimeout");
    }

    @Test
    void worstCaseAnswerAtOrAboveTheAuthzRequestTimeoutIsRefused() {
        String message = Chart.refusal(Chart.set("emqx.authz.requestTimeout", "5s"));
        assertMentions(message, "authz request_timeout 5000ms", "5200ms", "emqx.authz.requestTimeout");
    }

    @Test
    void acquisitionTimeoutNotShorterThanTheDeadlineIsRefused() {
        String message = Chart.refusal(Chart.set("registrationService.db.acquisitionTimeout", "4s"));
        assertMentions(message, "registrationService.db.acquisitionTimeout 4000ms", "deadline 4000ms");
    }

    @Test
    void queryWaitTimeoutNotShorterThanTheShortestDeadlineIsRefused() {
        String message = Chart.refusal(Chart.set("pgbouncer.queryWaitTimeout", "5s"));
        assertMentions(message, "pgbouncer.queryWaitTimeout 5000ms", "shortest service deadline 4000ms");
    }

    @Test
    void clientConnectionsAtHpaMaximumBeyondMaxClientConnAreRefused() {
        // auth 30 x (10 + 1 verifier writer) + registration 3 x 10 = 360 client connections > 2 x 200 less 20 %
        // headroom = 320. (EMQX's derived pool grows with maxReplicas, so the in-flight invariant still holds.)
        String message = Chart.refusal(Chart.set("authService.autoscaling.maxReplicas", 30));
        assertMentions(message, "connections:", "30 replicas x (pool 10 + 1 verifier writer) = 330", "3 x 10 = 30",
                "360 in all", "2 replicas x max_client_conn 200 less 20% headroom = 320", "pgbouncer.maxClientConn");
    }

    @Test
    void clientConnectionsCountAuthServicesVerifierWriterConnection() {
        // One PgBouncer of 115 less 20 % = 92: auth 6 x 10 + registration 3 x 10 = 90 would fit, but each auth-service
        // replica also holds its verifier writer's connection: 6 x 11 + 30 = 96.
        String message = Chart.refusal(Chart.set("pgbouncer.replicas", 1, "pgbouncer.maxClientConn", 115));
        assertMentions(message, "connections:", "6 replicas x (pool 10 + 1 verifier writer) = 66", "96 in all",
                "1 replicas x max_client_conn 115 less 20% headroom = 92");
        // 120 less 20 % = 96: exactly enough.
        Chart.render(Chart.set("pgbouncer.replicas", 1, "pgbouncer.maxClientConn", 120));
    }

    @Test
    void pgbouncerServerPoolsBeyondPostgresqlMaxConnectionsAreRefused() {
        String message = Chart.refusal(Chart.set("pgbouncer.defaultPoolSize", 50));
        assertMentions(message, "connections:", "2 replicas x 2 users (database.user, database.auth.user: one pool each)"
                + " x (default_pool_size 50 + reserve_pool_size 0) = 200", "migrations 3 x 2 = 6", "206 in all",
                "max_connections 100 - reserved 3 = 97", "pgbouncer.defaultPoolSize", "postgresql.maxConnections");
    }

    @Test
    void serverConnectionsCountOnePgbouncerPoolPerUser() {
        // PgBouncer pools per database/user pair, and auth-service has its own user: 2 x 2 x 22 + 6 = 94 fits 97,
        // 2 x 2 x 23 + 6 = 98 does not (counting one user, 2 x 23 + 6 = 52 would have passed).
        Chart.render(Chart.set("pgbouncer.defaultPoolSize", 22));
        assertMentions(Chart.refusal(Chart.set("pgbouncer.defaultPoolSize", 23)), "2 users", "= 92 server connections",
                "98 in all", "= 97");
        // The reserve pool is per pool too: 2 x 2 x (20 + 3) + 6 = 98.
        assertMentions(Chart.refusal(Chart.set("pgbouncer.reservePoolSize", 3)), "reserve_pool_size 3", "98 in all");
    }

    @Test
    void anExplicitEmqxPoolNoLargerThanWhatTheAuthTierAdmitsAtHpaMaximumIsRefused() {
        // EMQX's pool_size 8: 3 x 8 x 1 = 24 in flight, against 6 replicas x (2 + 20) = 132 admitted, + 25 % = 165.
        String message = Chart.refusal(Chart.set("emqx.authn.poolSize", 8));
        assertMentions(message, "in-flight:", "3 nodes x pool_size 8 x pipelining 1 = 24",
                "6 replicas (at its HPA maximum, authService.autoscaling.maxReplicas) x (bcrypt concurrency 2 + queue 20) = 132",
                "132 + 25% headroom (emqx.authn.inFlightHeadroomPercent) = 165", "emqx.authn.poolSize to at least 55",
                "emqx.authn.pipelining", "authService.autoscaling.maxReplicas", "authService.overload.bcrypt.maxWait");
    }

    @Test
    void aPoolThatOnlyMatchesWhatTheAuthTierAdmitsIsRefusedToo() {
        // 3 x 44 = 132 = exactly what 6 replicas admit: the excess would wait in EMQX's queue, so no.
        assertMentions(Chart.refusal(Chart.set("emqx.authn.poolSize", 44)), "pool_size 44", "= 132", "= 165");
        // One below the smallest accepted pool.
        assertMentions(Chart.refusal(Chart.set("emqx.authn.poolSize", 54)), "= 162", "at least 55");
    }

    @Test
    void theDerivedPoolSatisfiesTheRuleAtHpaMaximum() {
        // Defaults: ceil(165 / (3 nodes x 1)) = 55.
        assertEquals(55, authnPoolSize(Chart.render()));
        // 10 replicas x 22 = 220 admitted, + 25 % = 275; ceil(275 / 3) = 92; 3 x 92 = 276 >= 275 > 220.
        assertEquals(92, authnPoolSize(Chart.render(Chart.set("authService.autoscaling.maxReplicas", 10))));
        // The headroom is a value: + 100 % = 264 over 3 nodes = 88.
        assertEquals(88, authnPoolSize(Chart.render(Chart.set("emqx.authn.inFlightHeadroomPercent", 100))));
        // Pipelining multiplies in flight per connection: ceil(165 / (3 x 100)) = 1, still more than 132.
        assertEquals(1, authnPoolSize(Chart.render(Chart.set("emqx.authn.pipelining", 100))));
        // A longer maxWait admits more per replica: 2 x (1 + 20) = 42 x 6 = 252, + 25 % = 315, over 5 nodes = 63.
        assertEquals(63, authnPoolSize(Chart.render(Chart.set("authService.overload.bcrypt.maxWait", "2s",
                "emqx.replicas", 5))));
    }

    @Test
    void anExplicitPoolThatIsLargeEnoughIsKept() {
        assertEquals(55, authnPoolSize(Chart.render(Chart.set("emqx.authn.poolSize", 55))));
        assertEquals(200, authnPoolSize(Chart.render(Chart.set("emqx.authn.poolSize", 200))));
    }

    @Test
    void withoutAutoscalingTheRuleUsesTheFixedReplicaCount() {
        // 3 replicas x 22 = 66 admitted, + 25 % = ceil(82.5) = 83; derived ceil(83 / 3) = 28.
        assertEquals(28, authnPoolSize(Chart.render(Chart.set("authService.autoscaling.enabled", false,
                "authService.replicas", 3))));
        String message = Chart.refusal(Chart.set("authService.autoscaling.enabled", false, "authService.replicas", 3,
                "emqx.authn.poolSize", 27));
        assertMentions(message, "3 nodes x pool_size 27 x pipelining 1 = 81",
                "3 replicas (autoscaling off, authService.replicas) x (bcrypt concurrency 2 + queue 20) = 66", "= 83",
                "at least 28");
    }

    @Test
    void invariantsOfAnExternalEmqxAreCheckedToo() {
        String message = Chart.refusal(Chart.set("emqx.enabled", false, "emqx.replicas", 5, "emqx.authn.poolSize", 8));
        assertMentions(message, "in-flight:", "5 nodes x pool_size 8 x pipelining 1 = 40", "at least 33");
    }

    @Test
    void everyBrokenInvariantIsReportedAtOnce() {
        String message = Chart.refusal(Chart.set("pgbouncer.defaultPoolSize", 50, "emqx.authn.poolSize", 8));
        assertMentions(message, "default_pool_size 50", "pool_size 8");
    }

    @Test
    void aMaxWaitThatLeavesNoTimeToHashBeforeTheDeadlineIsRefused() {
        String message = Chart.refusal(Chart.set("registrationService.overload.bcrypt.maxWait", "4s"));
        assertMentions(message, "admission:", "registrationService.overload.bcrypt.maxWait 4000ms",
                "one worst-case bcrypt 200ms = 4200ms", "deadline 4000ms");
    }

    @Test
    void aTargetWaitAboveMaxWaitIsRefused() {
        assertMentions(Chart.refusal(Chart.set("authService.overload.bcrypt.targetWait", "2s")),
                "authService.overload.bcrypt.targetWait 2000ms is above maxWait 1000ms");
    }

    @Test
    void theSchemaRefusesTheOldQueueKeys() {
        assertMentions(Chart.refusal(Chart.set("authService.overload.bcryptQueue", 80)), "bcryptQueue");
    }

    @Test
    void minReplicasAboveMaxReplicasIsRefused() {
        assertMentions(Chart.refusal(Chart.set("registrationService.autoscaling.minReplicas", 4)),
                "registrationService.autoscaling.minReplicas 4 is above maxReplicas 3");
    }

    @Test
    void aMissingCpuLimitWithoutExplicitConcurrencyIsRefused() {
        assertMentions(Chart.refusal(Chart.set("authService.resources.limits.cpu", "null")),
                "authService: set resources.limits.cpu");
    }

    @Test
    void pgbouncerTimeoutsMustBeWholeSeconds() {
        assertMentions(Chart.refusal(Chart.set("pgbouncer.queryWaitTimeout", "2500ms")), "whole seconds", "2500ms");
    }

    @Test
    void theSchemaRefusesDurationsWithoutAUnit() {
        assertMentions(Chart.refusal(Chart.set("authService.overload.deadline", "4 seconds")),
                "/authService/overload/deadline");
    }

    @Test
    void theSchemaRefusesMisspeltKeys() {
        assertMentions(Chart.refusal(Chart.set("pgbouncer.maxClientConnections", 100)), "maxClientConnections");
    }

    @Test
    void theSchemaRefusesAnUnknownDeviceAnswerOtherThanDenyOrIgnore() {
        assertMentions(Chart.refusal(Chart.set("authService.unknownDevice", "allow")), "/authService/unknownDevice");
    }

    /** pool_size of EMQX's authenticator as rendered into the StatefulSet. */
    private static int authnPoolSize(Chart.Rendered rendered) {
        try {
            List<Map<String, Object>> chain = new ObjectMapper().readValue(EmqxTest.env(rendered).get("EMQX_AUTHENTICATION"),
                    new TypeReference<>() { });
            return (Integer) chain.get(0).get("pool_size");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void assertMentions(String message, String... parts) {
        for (String part : parts) {
            assertTrue(message.contains(part), () -> "expected \"" + part + "\" in:\n" + message);
        }
    }
}
