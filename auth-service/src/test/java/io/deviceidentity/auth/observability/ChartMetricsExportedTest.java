package io.deviceidentity.auth.observability;

import static io.deviceidentity.auth.support.Emqx.authn;
import static io.deviceidentity.auth.support.Emqx.authz;
import static io.deviceidentity.auth.support.StoredRows.awaitVerifier;
import static io.deviceidentity.auth.support.TestDevices.device;
import static io.deviceidentity.auth.support.TestDevices.uniqueId;
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
 * Every metric the chart's alerts and dashboard read that auth-service should export is really at /q/metrics, after
 * the service answered what EMQX sends: an allow by bcrypt, an allow by the fast path, a wrong password (fast-path
 * fallback), an unknown device and an authz check, on the real PostgreSQL + PgBouncer test stack. Most families are
 * registered when the service starts; the SmallRye FT ones (ft_*) and http_server_requests_seconds_* only once a
 * guarded method ran and a request was answered, which is why the test exercises first and scrapes after.
 */
@QuarkusTest
class ChartMetricsExportedTest {

    /** Families only registration-service exports. */
    private static final List<String> OTHER_SERVICE = List.of("identity_registration_");

    @Test
    void everyMetricTheChartReadsForAuthServiceIsExportedAfterTheEmqxRequests() throws Exception {
        String id = uniqueId("chart-metrics");
        String password = device(id).store();
        authn(id, password).then().statusCode(200);
        // The verifier is written after the answer; once it is stored the next check takes the fast path.
        awaitVerifier(id, "test-1");
        authn(id, password).then().statusCode(200);
        authn(id, "not-" + password).then().statusCode(200);
        authn(uniqueId("chart-metrics-unknown"), "x").then().statusCode(200);
        authz(id, "publish", "devices/" + id + "/telemetry", "0", "false").then().statusCode(200);

        assertTrue(ChartMetrics.referencedFromServices().contains("identity_fastpath_allows_total"),
                "the chart's files were not read: " + ChartMetrics.referencedFromServices());
        String scrape = ManagementInterface.metrics();
        assertEquals(Set.of(), ChartMetrics.missingFrom(scrape, OTHER_SERVICE),
                "the chart reads metrics auth-service does not export");
    }
}
