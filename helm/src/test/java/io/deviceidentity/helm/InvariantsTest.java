package io.deviceidentity.helm;

import static org.junit.jupiter.api.Assertions.assertTrue;


import org.junit.jupiter.api.Test;

/**
 * Every invariant of the chain is refused with a message that names the numbers and the values to change
 * (issue 5, "Co-configuration"), and the schema refuses values of the wrong shape.
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
        // auth 30 x 10 + registration 3 x 10 = 330 client connections > 2 x 200 less 20 % headroom = 320.
        // (EMQX's pool grows with it so that the in-flight invariant still holds.)
        String message = Chart.refusal(Chart.set("authService.autoscaling.maxReplicas", 30,
                "emqx.authn.poolSize", 20));
        assertMentions(message, "connections:", "30 replicas x pool 10 = 300", "3 x 10 = 30", "330 in all",
                "2 replicas x max_client_conn 200 less 20% headroom = 320", "pgbouncer.maxClientConn");
    }

    @Test
    void pgbouncerServerPoolsBeyondPostgresqlMaxConnectionsAreRefused() {
        String message = Chart.refusal(Chart.set("pgbouncer.defaultPoolSize", 50));
        assertMentions(message, "connections:", "2 replicas x (default_pool_size 50 + reserve_pool_size 0) = 100",
                "migrations 3 x 2 = 6", "106 in all", "max_connections 100 - reserved 3 = 97",
                "pgbouncer.defaultPoolSize", "postgresql.maxConnections");
    }

    @Test
    void emqxInFlightBeyondWhatTheAuthTierAdmitsIsRefused() {
        // EMQX's own default pipelining: 3 x 8 x 100 = 2400 requests, against 2 x (2 + 80) = 164.
        String message = Chart.refusal(Chart.set("emqx.authn.pipelining", 100));
        assertMentions(message, "in-flight:", "3 nodes x pool_size 8 x pipelining 100 = 2400",
                "2 replicas (at its minimum) x (bcrypt concurrency 2 + queue 80) = 164", "emqx.authn.pipelining");
    }

    @Test
    void emqxInFlightTooSmallToKeepTheAuthTierBusyIsRefused() {
        String message = Chart.refusal(Chart.set("emqx.replicas", 1, "emqx.authn.poolSize", 4));
        assertMentions(message, "in-flight:", "only 1 nodes x pool_size 4 x pipelining 1 = 4",
                "12 bcrypt threads", "6 replicas x concurrency 2", "emqx.authn.poolSize");
    }

    @Test
    void invariantsOfAnExternalEmqxAreCheckedToo() {
        String message = Chart.refusal(Chart.set("emqx.enabled", false, "emqx.authn.pipelining", 50));
        assertMentions(message, "in-flight:", "pipelining 50");
    }

    @Test
    void everyBrokenInvariantIsReportedAtOnce() {
        String message = Chart.refusal(Chart.set("pgbouncer.defaultPoolSize", 50, "emqx.authn.pipelining", 100));
        assertMentions(message, "default_pool_size 50", "pipelining 100");
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

    private static void assertMentions(String message, String... parts) {
        for (String part : parts) {
            assertTrue(message.contains(part), () -> "expected \"" + part + "\" in:\n" + message);
        }
    }
}
