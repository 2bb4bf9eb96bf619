package io.deviceidentity.loadtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.deviceidentity.loadtest.db.DatabaseAccess;
import io.deviceidentity.loadtest.db.DeviceSeeder;
import io.deviceidentity.loadtest.devices.PopulationSpec;
import io.deviceidentity.testsupport.TestDatabase;

/**
 * A few seconds of the tool against the real auth-service (over HTTPS, the tool checking its certificate against the
 * test CA with --ca-file, as EMQX's verify_peer does) on the test PostgreSQL + PgBouncer: devices with the
 * right password are allowed and stay connected, wrong passwords and unknown devices are denied (checked on the
 * service's own outcome metric, which tells the reasons apart), failed devices retry, and the run writes a
 * summary.json whose numbers add up and an HTML report with its charts. It asserts behaviour, not speed.
 */
class LoadTestSmokeIT {

    private static final String PREFIX = "loadtest-smoke-";
    private static final String PASSWORD_PREFIX = "smoke-password-";
    private static final int DEVICES = 10;

    private static AuthServiceProcess service;
    private static DatabaseAccess database;
    private static Path out;

    @BeforeAll
    static void startServiceAndSeed() throws Exception {
        int pgPort = Integer.getInteger("test.pg.port", 55433);
        int pgbouncerPort = Integer.getInteger("test.pgbouncer.port", 56433);
        Path target = Path.of(System.getProperty("loadtest.jar", "target/loadtest.jar")).toAbsolutePath().getParent();
        out = target.resolve("smoke");
        service = AuthServiceProcess.start(Path.of(System.getProperty("auth.service.jar")), pgPort, pgbouncerPort,
                target.resolve("smoke-auth-service.log"));
        database = new DatabaseAccess(TestDatabase.postgresUrl(), TestDatabase.pgbouncerUrl("pgbouncer"), "identity",
                "identity-local-dev", "identity");
        PopulationSpec population = new PopulationSpec(DEVICES, PREFIX, PASSWORD_PREFIX, null, 0, 0, 0);
        DeviceSeeder seeder = new DeviceSeeder(database);
        seeder.remove(population);
        seeder.seed(population, 10, 2);
        // A freshly started JVM hashes slowly until the JIT has compiled bcrypt; warm it so that the few seconds
        // of load below see answers.
        System.out.println("warm-up answers (ms): " + service.warmUp(n -> "{\"clientid\":\"" + PREFIX + n
                + "\",\"username\":\"\",\"password\":\"" + PASSWORD_PREFIX + n
                + "\",\"peerhost\":\"127.0.0.1\",\"cert_common_name\":\"\"}", DEVICES, 15, Duration.ofMillis(400)));
    }

    @AfterAll
    static void stopService() {
        if (service != null) {
            service.close();
        }
    }

    @Test
    void runAgainstTheRealServiceAllowsValidDevicesDeniesTheRestAndWritesItsReports() throws Exception {
        // The capacity mode: callers that send the next check as soon as the previous one is answered.
        assertEquals(0, LoadTest.execute("run", "--url", service.authnUrl().toString(),
                "--ca-file", service.caFile().toString(), "--closed-loop", "2",
                "--pool-size", "2", "--pipelining", "1", "--duration", "3s", "--devices", Integer.toString(DEVICES),
                "--device-prefix", PREFIX, "--password-prefix", PASSWORD_PREFIX, "--out", out.resolve("closed-loop").toString(),
                "--label", "closed-loop", "--progress", "lines"));
        JsonNode closed = new ObjectMapper().readTree(out.resolve("closed-loop/summary.json").toFile());
        assertEquals("closed-loop", closed.path("settings").path("model").asText());
        assertTrue(closed.path("totals").path("allows_in_time").asLong() >= 1, "closed loop got answers: " + closed);

        // The fast path is on (the service's default): the closed loop above verified these devices, so their
        // allows below are fast-path allows ("verified") as often as bcrypt ones ("ok").
        double allowBefore = outcome("allow", "ok") + outcome("allow", "verified");
        double badPasswordBefore = outcome("deny", "bad_password");
        double unknownBefore = outcome("deny", "unknown_device");

        int exit = LoadTest.execute("run", "--url", service.authnUrl().toString(), "--ca-file", service.caFile().toString(),
                "--rate", "4", "--duration", "5s", "--pool-size", "2", "--pipelining", "1", "--request-timeout", "5s",
                "--devices", Integer.toString(DEVICES), "--device-prefix", PREFIX, "--password-prefix", PASSWORD_PREFIX,
                "--wrong-password-share", "0.4", "--unknown-share", "0.25", "--retry", "fixed:1s", "--seed", "7",
                "--pg-url", database.postgresUrl(), "--pgbouncer-admin-url", database.pgbouncerAdminUrl(),
                "--out", out.toString(), "--label", "smoke", "--progress", "lines");
        assertEquals(0, exit, "exit code");

        JsonNode summary = new ObjectMapper().readTree(out.resolve("summary.json").toFile());
        JsonNode totals = summary.path("totals");
        long allows = totals.path("answers").path("200 allow").asLong();
        long denies = totals.path("answers").path("200 deny").asLong();
        assertTrue(allows >= 1, "some valid device was allowed: " + totals);
        assertTrue(denies >= 1, "wrong passwords and unknown devices were denied: " + totals);
        assertEquals(allows, totals.path("allows_in_time").asLong());
        assertEquals(allows, totals.path("devices_connected").asLong(), "an allowed device stays connected");
        assertTrue(allows <= DEVICES, "no device connects twice");
        assertTrue(totals.path("retries").asLong() >= 1, "denied devices retried on their 1 s timer");
        assertEquals(totals.path("offered").asLong(),
                totals.path("fresh_attempts").asLong() + totals.path("retries").asLong(), "offered = fresh + retries");
        long answered = 0;
        for (JsonNode count : totals.path("answers")) {
            answered += count.asLong();
        }
        assertEquals(totals.path("offered").asLong(),
                answered + totals.path("timeouts").asLong() + totals.path("pending_at_end").asLong(),
                "every attempt is answered, timed out or still pending at the end");
        assertEquals(5, summary.path("seconds").size(), "one entry per second of the run");

        // The headline window: 5 s is shorter than request_timeout + one retry period, so the window is clamped to
        // the whole run and says so; its goodput then equals the whole run's.
        JsonNode steady = summary.path("steady_state");
        assertTrue(steady.path("clamped").asBoolean(), "a 5 s run is too short for its steady-state rule: " + steady);
        assertEquals(summary.path("whole_run").path("allows_in_time").asLong(), steady.path("allows_in_time").asLong());
        assertEquals(allows, steady.path("outcomes").path("200 allow").asLong());
        // Wasted work comes from the service's own metrics (scraped at /q/metrics next to --url).
        JsonNode wasted = steady.path("wasted_work");
        assertTrue(wasted.path("bcrypts_done").asDouble() >= 1, "the service's bcrypt count was scraped: " + wasted);
        assertEquals(1, summary.path("settings").path("pipelining").asInt());
        assertTrue(summary.path("database").path("peak_pgbouncer_clients").asInt() >= 1,
                "the service's connections through PgBouncer were seen: " + summary.path("database"));
        assertTrue(summary.path("database").path("peak_postgres_connections").asInt() >= 1,
                "PostgreSQL backends were seen: " + summary.path("database"));

        // The service tells the two kinds of denial apart; the tool produced both.
        assertTrue(outcome("allow", "ok") + outcome("allow", "verified") - allowBefore >= allows,
                "the service counted the allows");
        assertTrue(outcome("deny", "bad_password") > badPasswordBefore, "wrong passwords reached bcrypt and failed");
        assertTrue(outcome("deny", "unknown_device") > unknownBefore, "unknown devices were denied");

        String html = Files.readString(out.resolve("report.html"));
        assertTrue(html.contains("<canvas id=\"rates\">") && html.contains("new Chart("), "report has its charts");
        assertTrue(html.contains("\"200 allow\""), "report embeds the run's data");
    }

    /**
     * The known-device storm's pieces: a closed-loop pass that has every device allowed once (bcrypt, a verifier
     * written), then an open-model run over a population of two parts: the verified devices connect on their first
     * attempt through the fast path (reason verified), never-verified ones through bcrypt, and the summary counts
     * each part on its own.
     */
    @Test
    void aPassVerifiesEveryDeviceOnceThenKnownDevicesConnectOnTheFastPath() throws Exception {
        int known = 40;
        PopulationSpec knownDevices = new PopulationSpec(known, "loadtest-known-", "-", "shared-smoke-pw", 0, 0, 0);
        PopulationSpec coldDevices = new PopulationSpec(40, "loadtest-cold-", "-", "shared-smoke-pw", 0, 0, 0);
        DeviceSeeder seeder = new DeviceSeeder(database);
        for (PopulationSpec population : List.of(knownDevices, coldDevices)) {
            seeder.remove(population);
            seeder.seed(population, 4, 1);
        }
        assertEquals(0, LoadTest.execute("run", "--url", service.authnUrl().toString(),
                "--ca-file", service.caFile().toString(), "--closed-loop", "2",
                "--pool-size", "2", "--pipelining", "1", "--each-device-once", "--duration", "60s",
                "--devices", Integer.toString(known), "--device-prefix", "loadtest-known-",
                "--shared-password", "shared-smoke-pw", "--out", out.resolve("pass").toString(), "--label", "pass",
                "--progress", "none"));
        JsonNode pass = new ObjectMapper().readTree(out.resolve("pass/summary.json").toFile());
        assertEquals(known, pass.path("totals").path("devices_connected").asLong(), "every device allowed once");
        assertTrue(pass.path("seconds").size() < 60, "the pass ended when it was done: " + pass.path("seconds").size());
        assertEquals(known, pass.path("totals").path("allows_in_time").asLong(), "and only once");

        double verifiedBefore = outcome("allow", "verified");
        assertEquals(0, LoadTest.execute("run", "--url", service.authnUrl().toString(),
                "--ca-file", service.caFile().toString(), "--rate", "10",
                "--duration", "3s", "--pool-size", "2", "--pipelining", "1", "--request-timeout", "5s",
                "--retry", "none", "--part", "known:loadtest-known-:" + known + ":0.5",
                "--part", "cold:loadtest-cold-:40:0.5", "--shared-password", "shared-smoke-pw",
                "--out", out.resolve("parts").toString(), "--label", "parts", "--progress", "none"));
        JsonNode parts = new ObjectMapper().readTree(out.resolve("parts/summary.json").toFile())
                .path("whole_run").path("parts");
        JsonNode knownPart = parts.path("known");
        assertTrue(knownPart.path("first_attempts").asLong() >= 1, "known devices arrived: " + parts);
        assertEquals(1.0, knownPart.path("first_attempt_success_share").asDouble(), "all on their first attempt");
        assertTrue(outcome("allow", "verified") - verifiedBefore >= knownPart.path("allows").asLong(),
                "through the fast path");
        assertTrue(parts.path("cold").path("fresh_attempts").asLong() >= 1, "cold devices arrived too: " + parts);
    }

    private static double outcome(String result, String reason) throws Exception {
        Matcher m = Pattern.compile("identity_authn_outcomes_total\\{[^}]*reason=\"" + reason + "\",result=\"" + result
                + "\"[^}]*} ([0-9.eE+]+)").matcher(service.metrics());
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }
}
