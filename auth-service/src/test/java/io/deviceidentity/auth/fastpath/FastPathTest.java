package io.deviceidentity.auth.fastpath;

import static io.deviceidentity.auth.support.Emqx.authn;
import static io.deviceidentity.auth.support.StoredRows.awaitVerifier;
import static io.deviceidentity.auth.support.StoredRows.passwordHash;
import static io.deviceidentity.auth.support.StoredRows.update;
import static io.deviceidentity.auth.support.StoredRows.verifier;
import static io.deviceidentity.auth.support.TestDevices.device;
import static io.deviceidentity.auth.support.TestDevices.uniqueId;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

import io.deviceidentity.auth.support.BcryptSaturation;
import io.deviceidentity.credentials.Bcrypt;
import io.deviceidentity.credentials.StoredVerifier;
import io.deviceidentity.metrics.MetricNames;
import io.deviceidentity.overload.BcryptWork;
import io.deviceidentity.overload.Lane;
import io.deviceidentity.testsupport.ForeignBcryptHashes;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;

/**
 * The verified-credential fast path against the real PostgreSQL and PgBouncer. What is paid is observed through the
 * service's metrics (bcrypt hashes, fast-path allows and fallbacks), never through timing.
 */
@QuarkusTest
class FastPathTest {

    /** The test profile's key (application.properties, %test). */
    static final String KEY_ID = "test-1";

    @Inject
    MeterRegistry registry;

    @Inject
    @BcryptWork Lane bcrypt;

    @Test
    void theFirstCheckPaysBcryptAndTheNextIsAllowedWithoutIt() throws Exception {
        String id = uniqueId("fast");
        String password = device(id).store();
        double hashes = hashes();
        double verifiedAllows = outcomes("allow", "verified");

        allowedAs("ok", () -> authn(id, password));
        assertEquals(hashes + 1, hashes(), "the first check pays bcrypt");
        awaitVerifier(id, KEY_ID);

        allowedAs("verified", () -> authn(id, password));
        allowedAs("verified", () -> authn(id, password));
        assertEquals(hashes + 1, hashes(), "verified checks pay no bcrypt");
        assertEquals(verifiedAllows + 2, outcomes("allow", "verified"));
    }

    @Test
    void aNewPasswordDeniesTheOldOneAndAllowsTheNewOneOnTheVeryNextCheck() throws Exception {
        String id = uniqueId("fast-newpw");
        String old = verified(id);
        // Registration replaces the hash. The verifier is left in place on purpose: its binding to the old bcrypt
        // string alone must retire it (registration also clears it; DeviceLifecycleTest shows that).
        update("UPDATE device_credentials SET password_hash = ? WHERE client_id = ?", Bcrypt.hash("new-pw", 4), id);
        double mismatches = fallbacks("mismatch");

        Response oldAnswer = authn(id, old);
        assertEquals("deny", oldAnswer.jsonPath().getString("result"), oldAnswer.asString());
        assertEquals(mismatches + 1, fallbacks("mismatch"));
        allowedAs("ok", () -> authn(id, "new-pw"));
    }

    @Test
    void theSamePasswordRegisteredAgainCostsOneBcryptThenIsVerifiedAgain() throws Exception {
        String id = uniqueId("fast-samepw");
        String password = verified(id);
        update("UPDATE device_credentials SET password_hash = ? WHERE client_id = ?", Bcrypt.hash(password, 4), id);
        double hashes = hashes();

        allowedAs("ok", () -> authn(id, password));
        assertEquals(hashes + 1, hashes(), "a new salt means one bcrypt");
        awaitVerifierFor(id, password, passwordHash(id));
        allowedAs("verified", () -> authn(id, password));
        assertEquals(hashes + 1, hashes());
    }

    @Test
    void aRevokedDeviceIsDeniedOnTheNextCheckThoughItsVerifierStillMatches() throws Exception {
        String id = uniqueId("fast-revoked");
        String password = verified(id);
        update("UPDATE device_credentials SET status = 'revoked' WHERE client_id = ?", id);

        Response answer = authn(id, password);
        assertEquals("deny", answer.jsonPath().getString("result"), answer.asString());
    }

    @Test
    void aFloodOfWrongPasswordsWritesNoVerifierAndIsNeverAllowed() throws Exception {
        String id = uniqueId("fast-wrong");
        device(id).store();
        double writes = writes();
        for (int i = 0; i < 8; i++) {
            Response answer = authn(id, "wrong-" + i);
            assertEquals("deny", answer.jsonPath().getString("result"), answer.asString());
        }
        assertNull(verifier(id));
        assertEquals(writes, writes(), "no verifier write was even queued");
    }

    @Test
    void aWrongPasswordForAVerifiedDeviceFallsBackToBcryptAndIsDenied() throws Exception {
        String id = uniqueId("fast-verified-wrong");
        verified(id);
        StoredVerifier before = verifier(id);
        double hashes = hashes();

        Response answer = authn(id, "not-the-password");
        assertEquals("deny", answer.jsonPath().getString("result"), answer.asString());
        assertEquals(hashes + 1, hashes());
        assertArrayEquals(before.mac(), verifier(id).mac(), "the stored verifier is untouched");
    }

    @Test
    void verifiedAllowsTakeNoAttemptFromTheDevicesBudget() throws Exception {
        String id = uniqueId("fast-flapping");
        String password = verified(id);
        // The test profile allows 10 attempts in a burst; a flapping link reconnects far more often than that.
        for (int i = 0; i < 25; i++) {
            allowedAs("verified", () -> authn(id, password));
        }
    }

    @Test
    void aPasswordOfExactly72BytesIsVerifiedAndOneSharingItsFirst72BytesIsDenied() throws Exception {
        String id = uniqueId("fast-72");
        String password = "é".repeat(30) + "x".repeat(12); // 60 + 12 = 72 UTF-8 bytes
        assertEquals(72, password.getBytes(StandardCharsets.UTF_8).length);
        device(id).password(password).store();
        allowedAs("ok", () -> authn(id, password));
        awaitVerifier(id, KEY_ID);
        allowedAs("verified", () -> authn(id, password));

        for (String longer : List.of(password + "y", password + "x", password + password)) {
            deniedAs("invalid_password", () -> authn(id, longer));
        }
    }

    @Test
    void fieldsThatConcatenateAlikeDoNotShareAVerifier() throws Exception {
        // A device without a stored username accepts any username, so its verifier covers the one presented:
        // ("ab", "c") must not verify ("a", "bc"), which a plain concatenation would.
        String id = uniqueId("fast-boundary");
        device(id).password("c").store();
        allowedAs("ok", () -> authn(id, "ab", "c"));
        awaitVerifier(id, KEY_ID);
        double mismatches = fallbacks("mismatch");

        Response shifted = authn(id, "a", "bc");
        assertEquals("deny", shifted.jsonPath().getString("result"), shifted.asString());
        assertEquals(mismatches + 1, fallbacks("mismatch"));

        // The same across client id and username: a verifier copied to a device whose id and username, joined,
        // spell the same bytes, with the same bcrypt string.
        String prefix = uniqueId("fast-b");
        device(prefix + "ab").username("c").password("shared").store();
        device(prefix + "a").username("bc").password("shared").store();
        update("UPDATE device_credentials SET password_hash = ? WHERE client_id = ?", passwordHash(prefix + "ab"),
                prefix + "a");
        allowedAs("ok", () -> authn(prefix + "ab", "c", "shared"));
        StoredVerifier planted = awaitVerifier(prefix + "ab", KEY_ID);
        update("UPDATE device_credentials SET verifier_key_id = ?, verifier = ? WHERE client_id = ?", planted.keyId(),
                planted.mac(), prefix + "a");
        double hashes = hashes();
        allowedAs("ok", () -> authn(prefix + "a", "bc", "shared"));
        assertEquals(hashes + 1, hashes(), "the copied verifier did not match: bcrypt decided");
    }

    @Test
    void aVerifierUnderARetiredKeyCostsOneBcryptAndIsRewrittenUnderTheCurrentKey() throws Exception {
        String id = uniqueId("fast-retired");
        String password = device(id).store();
        VerifierKey retired = TestKeys.unknown("retired-1");
        TestKeys.plant(id, password, retired, retired.id());
        double unknownKeys = fallbacks("unknown_key");
        double hashes = hashes();

        allowedAs("ok", () -> authn(id, password));
        assertEquals(unknownKeys + 1, fallbacks("unknown_key"));
        assertEquals(hashes + 1, hashes());
        awaitVerifier(id, KEY_ID);
        allowedAs("verified", () -> authn(id, password));
        assertEquals(hashes + 1, hashes());
    }

    @Test
    void aVerifierComputedUnderAnotherKeyDoesNotVerifyUnderTheCurrentOne() throws Exception {
        // A database value moved under the current key's id (or made by someone without the key) is a mismatch.
        String id = uniqueId("fast-forged");
        String password = device(id).store();
        VerifierKey other = TestKeys.unknown(KEY_ID);
        TestKeys.plant(id, password, other, KEY_ID);
        double mismatches = fallbacks("mismatch");
        double hashes = hashes();

        allowedAs("ok", () -> authn(id, password));
        assertEquals(mismatches + 1, fallbacks("mismatch"));
        assertEquals(hashes + 1, hashes());
    }

    @Test
    void twentyIdenticalColdChecksInFlightTogetherCostOneBcrypt() throws Exception {
        String id = uniqueId("fast-flight");
        String password = device(id).store();
        double joined = counter(MetricNames.BCRYPT_JOINED);
        double hashes = hashes();
        CountDownLatch release = new CountDownLatch(1);
        // The test profile has one bcrypt thread: while a test task holds it, the first check waits in the queue and
        // the other 19 find it in flight.
        CompletableFuture<Boolean> holder = BcryptSaturation.occupyThread(bcrypt, release);
        ExecutorService callers = Executors.newFixedThreadPool(20);
        List<CompletableFuture<Response>> answers = new ArrayList<>();
        try {
            // One after the other, each sent once the previous one waits on the shared hash, so that their reads
            // never compete for the database lane's threads (which would refuse some): all 20 are in flight at once.
            for (int i = 0; i < 20; i++) {
                answers.add(CompletableFuture.supplyAsync(() -> authn(id, password), callers));
                int sent = i;
                awaitTrue(() -> sent == 0 ? gauge(MetricNames.BCRYPT_FLIGHTS) == 1
                        : counter(MetricNames.BCRYPT_JOINED) == joined + sent, "check " + (i + 1) + " in flight");
            }
        } finally {
            release.countDown();
            callers.shutdown();
        }
        holder.get(30, TimeUnit.SECONDS);
        for (CompletableFuture<Response> answer : answers) {
            Response allowed = answer.get(30, TimeUnit.SECONDS);
            assertEquals("allow", allowed.jsonPath().getString("result"), allowed.asString());
        }
        assertEquals(joined + 19, counter(MetricNames.BCRYPT_JOINED));
        assertEquals(hashes + 2, hashes(), "the test's holder task and one bcrypt for all 20");
    }

    @Test
    void aVerifiedDeviceIsAllowedWhileBcryptIsSaturatedAndAColdOneIsRefused() throws Exception {
        String known = uniqueId("fast-storm-known");
        String knownPassword = verified(known);
        String cold = uniqueId("fast-storm-cold");
        String coldPassword = device(cold).store();
        CountDownLatch release = new CountDownLatch(1);
        List<CompletableFuture<Boolean>> occupied = BcryptSaturation.saturate(bcrypt, release);
        try {
            allowedAs("verified", () -> authn(known, knownPassword));
            Response refused = authn(cold, coldPassword);
            assertEquals(503, refused.statusCode(), refused.asString());
            assertEquals("overload", refused.jsonPath().getString("reason"));
            allowedAs("verified", () -> authn(known, knownPassword));
        } finally {
            release.countDown();
        }
        occupied.forEach(task -> task.handle((value, failure) -> true).join());
    }

    @Test
    void theVerifierWriterQueueIsVisibleAndEmptyAtRest() throws Exception {
        String id = uniqueId("fast-queue");
        verified(id);
        assertEquals(0.0, registry.get(MetricNames.FASTPATH_WRITE_QUEUE_DEPTH).gauge().value());
        assertEquals(1.0, registry.get(MetricNames.FASTPATH_ENABLED).gauge().value());
        assertFalse(registry.get(MetricNames.FASTPATH_WRITES_DROPPED).counters().isEmpty());
    }

    static final List<ForeignBcryptHashes.Vector> IMPORTED = ForeignBcryptHashes.ALL;

    /**
     * A device migrated with its existing hash (registration-service stores {@code password_hash} exactly as given,
     * which is what the row here holds), made by another bcrypt implementation: its password is allowed by a cold
     * bcrypt check, and then by the fast path, whose verifier binds the exact imported string. A wrong password is
     * denied.
     */
    @ParameterizedTest(name = "{0}")
    @FieldSource("IMPORTED")
    void anImportedHashFromAnotherImplementationAllowsItsPasswordByBcryptAndThenByTheFastPath(
            ForeignBcryptHashes.Vector vector) throws Exception {
        String id = uniqueId("fast-imported");
        String password = device(id).passwordHash(vector.hash(), vector.password()).store();
        double hashes = hashes();

        // Same length, last character changed: the 72-byte one may not grow.
        String wrong = password.substring(0, password.length() - 1) + (password.endsWith("x") ? "y" : "x");
        deniedAs("bad_password", () -> authn(id, wrong));
        allowedAs("ok", () -> authn(id, password));
        assertEquals(hashes + 2, hashes(), "both cold checks paid bcrypt");
        awaitVerifierFor(id, password, vector.hash());
        allowedAs("verified", () -> authn(id, password));
        assertEquals(hashes + 2, hashes(), "the verified check paid none");
        assertEquals(vector.hash(), passwordHash(id), "the imported string is untouched");
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** Stores a device, pays its one bcrypt and waits for its verifier: the device is warm. */
    private String verified(String id) throws InterruptedException {
        String password = device(id).store();
        allowedAs("ok", () -> authn(id, password));
        awaitVerifier(id, KEY_ID);
        allowedAs("verified", () -> authn(id, password));
        return password;
    }

    /** Waits (bounded) for the verifier over exactly this password and bcrypt string, under the test key. */
    private void awaitVerifierFor(String id, String password, String hash) throws InterruptedException {
        byte[] expected = Verifiers.mac(TestKeys.CURRENT, id, "", utf8(password), hash);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < until) {
            StoredVerifier stored = verifier(id);
            if (stored != null && java.util.Arrays.equals(stored.mac(), expected)) {
                return;
            }
            Thread.sleep(10);
        }
        throw new AssertionError("no verifier over the new bcrypt string was written; writes so far: "
                + writerCounts());
    }

    /**
     * Asserts an allow and how it was decided: the answer carries only the result, so the reason is read from the
     * outcome counter, which is incremented before the answer is written.
     */
    private void allowedAs(String reason, Supplier<Response> call) {
        answeredAs("allow", reason, call);
    }

    private void deniedAs(String reason, Supplier<Response> call) {
        answeredAs("deny", reason, call);
    }

    private void answeredAs(String result, String reason, Supplier<Response> call) {
        double before = outcomes(result, reason);
        Response answer = call.get();
        assertEquals(200, answer.statusCode(), answer.asString());
        assertEquals(result, answer.jsonPath().getString("result"), answer.asString());
        assertEquals(before + 1, outcomes(result, reason), result + ", but not as '" + reason + "'");
    }

    /** What the verifier writer did with every write so far, by result and by cause of drop: for a failure's message. */
    private String writerCounts() {
        StringBuilder counts = new StringBuilder();
        for (String name : List.of(MetricNames.FASTPATH_WRITES, MetricNames.FASTPATH_WRITES_DROPPED)) {
            registry.find(name).counters().forEach(counter -> counts.append(counter.getId().getTags())
                    .append('=').append(counter.count()).append(' '));
        }
        return counts.toString().trim();
    }

    private double hashes() {
        return registry.get(MetricNames.BCRYPT_DURATION).timer().count();
    }

    private double outcomes(String result, String reason) {
        Counter counter = registry.find(MetricNames.AUTHN_OUTCOMES).tag(MetricNames.TAG_RESULT, result)
                .tag(MetricNames.TAG_REASON, reason).counter();
        return counter == null ? 0 : counter.count();
    }

    private double fallbacks(String cause) {
        return registry.get(MetricNames.FASTPATH_FALLBACKS).tag(MetricNames.TAG_CAUSE, cause).counter().count();
    }

    private double writes() {
        return registry.find(MetricNames.FASTPATH_WRITES).counters().stream().mapToDouble(Counter::count).sum()
                + registry.find(MetricNames.FASTPATH_WRITES_DROPPED).counters().stream().mapToDouble(Counter::count)
                        .sum();
    }

    private double gauge(String name) {
        return registry.get(name).gauge().value();
    }

    private static void awaitTrue(java.util.function.BooleanSupplier condition, String what)
            throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > until) {
                throw new AssertionError("not reached within 20 s: " + what);
            }
            Thread.sleep(5);
        }
    }

    private double counter(String name) {
        return registry.get(name).counter().count();
    }
}
