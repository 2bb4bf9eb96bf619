package io.deviceidentity.registration.reports;

import static io.deviceidentity.registration.support.Devices.api;
import static io.deviceidentity.registration.support.Devices.passwordBody;
import static io.deviceidentity.registration.support.Devices.uniquePrefix;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.deviceidentity.testsupport.ManagementInterface;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.deviceidentity.metrics.PrometheusText;
import io.deviceidentity.registration.support.Imports;
import io.deviceidentity.testsupport.ForeignBcryptHashes;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import io.restassured.path.json.JsonPath;

/**
 * Imported hashes below the configured cost: counted in the import's report and in
 * {@code identity_registration_weak_hashes_written_total}, and listed, page by page, by
 * {@code GET /v1/device-reports/weak-hashes} until a PUT with a new password re-hashes them. The service hashes at
 * cost 5 here, so the cost-04 hash made by libxcrypt is weak and the cost-05 one is not.
 */
@QuarkusTest
@TestProfile(WeakHashesTest.Cost5.class)
class WeakHashesTest {

    public static class Cost5 implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("identity.registration.bcrypt-cost", "5");
        }
    }

    private static final String WEAK = ForeignBcryptHashes.LIBXCRYPT_2A.hash();
    private static final String STRONG_ENOUGH = ForeignBcryptHashes.LIBXCRYPT_2B.hash();
    private static final String REPORT = "/v1/device-reports/weak-hashes";

    @Test
    void anImportOfCost04HashesIsCountedInItsReportAndTheMetricAndListedUntilRotated() {
        assertTrue(WEAK.startsWith("$2a$04$") && STRONG_ENOUGH.startsWith("$2b$05$"));
        String prefix = uniquePrefix("weak");
        double before = written("import");

        StringBuilder body = new StringBuilder();
        for (int i = 0; i < 5; i++) {
            body.append(Imports.line(prefix + "w" + i, WEAK));
        }
        body.append(Imports.line(prefix + "strong", STRONG_ENOUGH));
        Imports.Answer answer = Imports.post(body.toString());
        assertEquals(6, answer.summary().get("imported").asLong(), answer.lines().toString());
        assertEquals(5, answer.summary().get("weak_hashes").asLong(), answer.lines().toString());
        assertEquals(before + 5, written("import"));

        List<String> listed = weakWithPrefix(prefix, 2);
        assertEquals(List.of(prefix + "w0", prefix + "w1", prefix + "w2", prefix + "w3", prefix + "w4"), listed);

        // Rotation: a new password is hashed at the service's cost, and the device leaves the report.
        api().body(passwordBody("a-new-machine-generated-password")).put("/v1/devices/{id}", prefix + "w0")
                .then().statusCode(200);
        // Revoked devices need no rotation.
        api().delete("/v1/devices/{id}", prefix + "w1").then().statusCode(204);
        assertEquals(List.of(prefix + "w2", prefix + "w3", prefix + "w4"), weakWithPrefix(prefix, 1000));
    }

    @Test
    void aPutOfAWeakHashIsCountedAndListed() {
        String prefix = uniquePrefix("weak-put");
        String id = prefix + "d";
        double before = written("put");
        api().body("{\"password_hash\":\"" + WEAK + "\"}").put("/v1/devices/{id}", id).then().statusCode(201);
        api().body("{\"password_hash\":\"" + STRONG_ENOUGH + "\"}").put("/v1/devices/{id}", id + "2")
                .then().statusCode(201);
        assertEquals(before + 1, written("put"));
        assertEquals(List.of(id), weakWithPrefix(prefix, 1000));
    }

    @Test
    void aBadLimitOrCursorIs400() {
        api().get(REPORT + "?limit=0").then().statusCode(400).body("reason", equalTo("invalid_field"));
        api().get(REPORT + "?limit=1001").then().statusCode(400).body("reason", equalTo("invalid_field"));
        api().get(REPORT + "?limit=ten").then().statusCode(400).body("reason", equalTo("invalid_field"));
        api().get(REPORT + "?after=%%%").then().statusCode(400).body("reason", equalTo("invalid_field"));
        api().get(REPORT + "?after=bm90LWEtY3Vyc29y").then().statusCode(400).body("reason", equalTo("invalid_field"));
        api().get(REPORT).then().statusCode(200).body("bcrypt_cost", equalTo(5));
    }

    /**
     * The report's cost-04 client ids with {@code prefix}, in report order, {@code limit} a page: from a cursor just
     * before the prefix (the shared test database holds every earlier run's weak rows), page after page until the
     * ids leave the prefix.
     */
    private static List<String> weakWithPrefix(String prefix, int limit) {
        List<String> found = new ArrayList<>();
        String after = WeakHashesResource.cursor(new WeakHashPage.WeakHash(prefix, 4));
        int pages = 0;
        boolean beyond = false;
        do {
            JsonPath page = api().queryParam("limit", limit).queryParam("after", after).get(REPORT)
                    .then().statusCode(200).extract().jsonPath();
            assertEquals(5, page.getInt("bcrypt_cost"));
            List<Map<String, Object>> devices = page.getList("devices");
            assertTrue(devices.size() <= limit);
            for (Map<String, Object> device : devices) {
                assertEquals(4, device.get("cost"), device.toString());
                String clientId = (String) device.get("client_id");
                if (clientId.startsWith(prefix)) {
                    found.add(clientId);
                } else {
                    beyond = true;
                }
            }
            after = page.getString("next");
            assertTrue(++pages < 100, "the report does not leave the prefix");
        } while (after != null && !beyond);
        return found;
    }

    private static double written(String operation) {
        return PrometheusText.sum(ManagementInterface.metrics(),
                "identity_registration_weak_hashes_written_total{operation=\"" + operation + "\"}");
    }
}
