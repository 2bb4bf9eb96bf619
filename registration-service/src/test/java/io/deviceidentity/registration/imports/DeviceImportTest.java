package io.deviceidentity.registration.imports;

import static io.deviceidentity.registration.support.Devices.api;
import static io.deviceidentity.registration.support.Devices.uniquePrefix;
import static io.deviceidentity.registration.support.Imports.line;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.deviceidentity.credentials.DeviceCredential;
import io.deviceidentity.credentials.DeviceStatus;
import io.deviceidentity.registration.support.Database;
import io.deviceidentity.registration.support.Imports;
import io.deviceidentity.testsupport.ForeignBcryptHashes;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;

/**
 * The bulk import against the real PostgreSQL, through the real PgBouncer in transaction pooling mode: row counts
 * and rows are read over the test's own direct connection.
 */
@QuarkusTest
class DeviceImportTest {

    private static final String HASH = ForeignBcryptHashes.LIBXCRYPT_2A.hash();
    private static final String OTHER_HASH = ForeignBcryptHashes.LIBXCRYPT_2B.hash();
    /** The default batch size (RegistrationConfig.Import). */
    private static final int BATCH = 500;

    @Test
    void aHundredThousandLinesAreImportedAndTheSameFileAgainImportsNothing() {
        String prefix = uniquePrefix("import-100k");
        int count = 100_000;
        StringBuilder file = new StringBuilder(count * 110);
        for (int i = 0; i < count; i++) {
            file.append(line(prefix + i, HASH));
        }
        String body = file.toString();

        Imports.Answer first = Imports.post(body);
        assertEquals(200, first.status());
        JsonNode summary = first.summary();
        assertTrue(summary.get("complete").asBoolean(), summary.toString());
        assertEquals(count, summary.get("lines").asInt());
        assertEquals(count, summary.get("imported").asLong());
        assertEquals(0, summary.get("skipped").asLong());
        assertEquals(0, summary.get("rejected").asLong());
        assertEquals(count, Database.countWithPrefix(prefix));
        List<JsonNode> progress = first.ofType("progress");
        assertEquals(count / BATCH, progress.size(), "a progress line after every batch");
        assertEquals(BATCH, progress.get(0).get("committed_through_line").asInt());

        Imports.Answer again = Imports.post(body);
        JsonNode rerun = again.summary();
        assertTrue(rerun.get("complete").asBoolean(), rerun.toString());
        assertEquals(0, rerun.get("imported").asLong());
        assertEquals(count, rerun.get("skipped").asLong());
        assertEquals(0, rerun.get("rejected").asLong());
        assertEquals(count, Database.countWithPrefix(prefix));
        assertEquals(HASH, Database.row(prefix + 4242).orElseThrow().passwordHash());
    }

    @Test
    void everyBadLineIsReportedWithItsNumberAndReasonAndTheOthersAreImported() {
        String prefix = uniquePrefix("import-bad");
        String tooLong = "{\"client_id\":\"" + prefix + "long\",\"password_hash\":\"" + HASH + "\",\"username\":\""
                + "u".repeat(20_000) + "\"}\n";
        String body = line(prefix + "a", HASH) // 1
                + line(prefix + "md5", "$1$saltsalt$qjXMvbEw8oaL.CzflDtaK/") // 2
                + "\n" // 3: blank lines are passed over
                + "{not json\n" // 4
                + "{\"client_id\":\"" + prefix + "b\",\"password_hash\":\"" + OTHER_HASH + "\",\"username\":\"meter-b\","
                + "\"acl\":[{\"permission\":\"allow\",\"action\":\"publish\",\"topic\":\"b/#\"}]}\r\n" // 5, CRLF
                + "{\"client_id\":\"" + prefix + "pw\",\"password\":\"plain-text\"}\n" // 6
                + "{\"client_id\":\"" + prefix + "x\",\"password_hash\":\"" + HASH + "\",\"colour\":1}\n" // 7
                + line("bad/client", HASH) // 8
                + line(prefix + "a", OTHER_HASH) // 9: same client id as line 1
                + line(prefix + "cost15", "$2a$15$" + HASH.substring(7)) // 10
                + tooLong // 11
                + "{\"client_id\":\"" + prefix + "dup\",\"client_id\":\"again\",\"password_hash\":\"" + HASH + "\"}\n" // 12
                + line(prefix + "c", ForeignBcryptHashes.LIBXCRYPT_2Y.hash()); // 13, no newline at the end
        body = body.substring(0, body.length() - 1);

        Imports.Answer answer = Imports.post(body);
        assertEquals(200, answer.status());
        assertEquals(Map.of(2, "invalid_password_hash", 4, "malformed_json", 6, "unknown_field",
                7, "unknown_field", 8, "invalid_client_id", 9, "duplicate_client_id", 10, "invalid_password_hash",
                11, "line_too_long", 12, "duplicate_field"), answer.rejectedReasons());
        JsonNode summary = answer.summary();
        assertEquals(13, summary.get("lines").asInt());
        assertEquals(3, summary.get("imported").asLong());
        assertEquals(9, summary.get("rejected").asLong());
        for (JsonNode rejected : answer.ofType("rejected")) {
            String text = rejected.toString();
            assertFalse(text.contains(HASH.substring(7)) || text.contains(OTHER_HASH.substring(7))
                    || text.contains("plain-text") || text.contains("qjXMvbEw8oaL"), "echoes a secret: " + text);
        }
        assertEquals(3, Database.countWithPrefix(prefix));
        DeviceCredential b = Database.row(prefix + "b").orElseThrow();
        assertEquals("meter-b", b.username());
        assertEquals("b/#", b.acl().get(0).topic());
        assertEquals(HASH, Database.row(prefix + "a").orElseThrow().passwordHash(), "line 9 did not replace line 1");
    }

    @Test
    void earlierBatchesAreCommittedWhileLaterLinesAreStillBeingSentAndASecondImportMeanwhileIs429()
            throws Exception {
        String prefix = uniquePrefix("import-stream");
        try (Imports.Upload upload = new Imports.Upload()) {
            StringBuilder first = new StringBuilder();
            for (int i = 0; i < 2 * BATCH; i++) {
                first.append(line(prefix + i, HASH));
            }
            upload.send(first.toString());
            // Two whole batches sent and the body not ended: both are visible to another connection, so neither
            // waits for the end of the file to commit.
            awaitRows(prefix, 2 * BATCH);

            Imports.Answer busy = Imports.post(line(prefix + "other", HASH));
            assertEquals(429, busy.status());
            assertEquals("import_in_progress", busy.lines().get(0).get("reason").asText());

            upload.send(line(prefix + "last", HASH));
            Imports.Answer answer = upload.finish();
            assertEquals(200, answer.status());
            JsonNode summary = answer.summary();
            assertTrue(summary.get("complete").asBoolean(), summary.toString());
            assertEquals(2 * BATCH + 1, summary.get("imported").asLong());
        }
        assertEquals(2 * BATCH + 1, Database.countWithPrefix(prefix));
    }

    @Test
    void anUploadCutOffMidwayKeepsItsCommittedBatchesAndARerunFinishesIt() throws Exception {
        String prefix = uniquePrefix("import-cut");
        StringBuilder file = new StringBuilder();
        for (int i = 0; i < 3 * BATCH; i++) {
            file.append(line(prefix + i, HASH));
        }
        String whole = file.toString();
        try (Imports.Upload upload = new Imports.Upload()) {
            upload.send(whole.substring(0, whole.indexOf(line(prefix + (2 * BATCH + 10), HASH))));
            awaitRows(prefix, 2 * BATCH);
        } // the connection closes without the rest: the third batch never arrives
        awaitNoImportRunning();
        assertEquals(2 * BATCH, Database.countWithPrefix(prefix));

        JsonNode summary = Imports.post(whole).summary();
        assertEquals(BATCH, summary.get("imported").asLong());
        assertEquals(2 * BATCH, summary.get("skipped").asLong());
        assertEquals(3 * BATCH, Database.countWithPrefix(prefix));
    }

    @Test
    void replaceUpdatesChangedActiveDevicesLeavesIdenticalOnesAndNeverReactivatesARevokedOne() {
        String prefix = uniquePrefix("import-replace");
        Imports.post(line(prefix + "changed", HASH) + line(prefix + "same", HASH) + line(prefix + "revoked", HASH));
        api().delete("/v1/devices/{id}", prefix + "revoked").then().statusCode(204);
        Database.plantVerifier(prefix + "changed");

        JsonNode summary = Imports.post(line(prefix + "changed", OTHER_HASH) + line(prefix + "same", HASH)
                + line(prefix + "revoked", OTHER_HASH) + line(prefix + "new", HASH), "?existing=replace").summary();
        assertEquals(1, summary.get("imported").asLong());
        assertEquals(1, summary.get("replaced").asLong());
        assertEquals(2, summary.get("skipped").asLong());
        DeviceCredential changed = Database.rowWithVerifier(prefix + "changed").orElseThrow();
        assertEquals(OTHER_HASH, changed.passwordHash());
        assertEquals(null, changed.verifier(), "a replaced hash takes its verifier with it");
        DeviceCredential revoked = Database.row(prefix + "revoked").orElseThrow();
        assertEquals(DeviceStatus.REVOKED, revoked.status());
        assertEquals(HASH, revoked.passwordHash());

        JsonNode skipped = Imports.post(line(prefix + "changed", HASH), "?existing=skip").summary();
        assertEquals(1, skipped.get("skipped").asLong());
        assertEquals(OTHER_HASH, Database.row(prefix + "changed").orElseThrow().passwordHash());
    }

    @Test
    void anImportWithoutTheTokenOrAsAnotherMediaTypeOrWithABadModeIsRefusedBeforeAnythingIsRead() {
        String prefix = uniquePrefix("import-refused");
        byte[] body = line(prefix + "a", HASH).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        RestAssured.given().contentType("application/x-ndjson").body(body).post(Imports.PATH).then()
                .statusCode(401).body("reason", equalTo("unauthorized"));
        api().body(body).post(Imports.PATH).then().statusCode(415)
                .body("reason", equalTo("unsupported_media_type"))
                .body("message", equalTo("the body must be application/x-ndjson"));
        api().contentType("application/x-ndjson").body(body).queryParam("existing", "merge").post(Imports.PATH)
                .then().statusCode(400).body("reason", equalTo("invalid_field"));
        assertEquals(0, Database.countWithPrefix(prefix));
    }

    @Test
    void theFrameworksRefusalsOfTheImportSayWhatThisEndpointAnswersReadsAndAllows() {
        String prefix = uniquePrefix("import-generic");
        byte[] body = line(prefix + "a", HASH).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        // The import answers JSON lines, not JSON: a client asking for JSON is told which type it would get.
        api().contentType("application/x-ndjson").accept("application/json").body(body).post(Imports.PATH).then()
                .statusCode(406).body("reason", equalTo("not_acceptable"))
                .body("message", equalTo("this endpoint answers application/x-ndjson, which the request's Accept"
                        + " header does not allow"));
        api().contentType("application/x-ndjson").body(body).put(Imports.PATH).then().statusCode(405)
                .body("reason", equalTo("method_not_allowed"))
                .body("message", equalTo("this endpoint answers OPTIONS, POST, not PUT"));
        assertEquals(0, Database.countWithPrefix(prefix));
    }

    private static void awaitRows(String prefix, int rows) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (Database.countWithPrefix(prefix) < rows) {
            if (System.nanoTime() > until) {
                throw new AssertionError(rows + " rows never became visible: " + Database.countWithPrefix(prefix));
            }
            Thread.sleep(20);
        }
    }

    /** Until an import is accepted again (the cut-off one has released its slot); the probe imports nothing. */
    private static void awaitNoImportRunning() throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (Imports.post("").status() == 429) {
            if (System.nanoTime() > until) {
                throw new AssertionError("the cut-off import never ended");
            }
            Thread.sleep(50);
        }
    }
}
