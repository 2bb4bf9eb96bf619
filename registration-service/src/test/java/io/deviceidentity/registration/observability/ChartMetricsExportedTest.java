package io.deviceidentity.registration.observability;

import static io.deviceidentity.registration.support.Devices.api;
import static io.deviceidentity.registration.support.Devices.passwordBody;
import static io.deviceidentity.registration.support.Devices.uniqueId;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.deviceidentity.testsupport.ManagementInterface;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.deviceidentity.testsupport.ChartMetrics;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Every metric the chart's alerts and dashboard read that registration-service should export is really at
 * /q/metrics, after a device's whole lifecycle (PUT hashes with bcrypt and saves, GET, DELETE, GET of a device never
 * registered) on the real PostgreSQL + PgBouncer test stack. The SmallRye FT families (ft_*) and
 * http_server_requests_seconds_* appear only once a guarded method ran and a request was answered.
 */
@QuarkusTest
class ChartMetricsExportedTest {

    private static final String PATH = "/v1/devices/{clientId}";

    /** Families only auth-service exports: EMQX's answers, the fast path and bcrypt single-flight. */
    private static final List<String> OTHER_SERVICE = List.of("identity_authn_", "identity_authz_", "identity_fastpath_",
            "identity_bcrypt_joined", "identity_bcrypt_flights");

    @Test
    void everyMetricTheChartReadsForRegistrationServiceIsExportedAfterADeviceLifecycle() {
        String id = uniqueId("chart-metrics");
        // The first request of a cold JVM on a busy machine may miss its deadline: 503 is "not now, retry", and PUT
        // is idempotent, so retry a few times as a device's installer would.
        int status = 503;
        for (int i = 0; i < 5 && status == 503; i++) {
            status = api().body(passwordBody("chart-metrics-password")).put(PATH, id).statusCode();
        }
        assertTrue(status == 201 || status == 200, "PUT answered " + status);
        api().get(PATH, id).then().statusCode(200);
        api().delete(PATH, id).then().statusCode(204);
        api().get(PATH, uniqueId("chart-metrics-never")).then().statusCode(404);

        assertTrue(ChartMetrics.referencedFromServices().contains("identity_registration_outcomes_total"),
                "the chart's files were not read: " + ChartMetrics.referencedFromServices());
        String scrape = ManagementInterface.metrics();
        assertEquals(Set.of(), ChartMetrics.missingFrom(scrape, OTHER_SERVICE),
                "the chart reads metrics registration-service does not export");
    }
}
