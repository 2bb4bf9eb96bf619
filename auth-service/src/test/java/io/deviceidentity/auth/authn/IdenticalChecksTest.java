package io.deviceidentity.auth.authn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;

import io.deviceidentity.credentials.DeviceCredential;
import io.deviceidentity.credentials.DeviceStatus;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

class IdenticalChecksTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final IdenticalChecks checks = new IdenticalChecks(registry);
    private final DeviceCredential device = new DeviceCredential("dev-1", null, "$2a$04$stored-bcrypt-string",
            DeviceStatus.ACTIVE, false, List.of(), null, null, null);
    private final AtomicInteger hashes = new AtomicInteger();
    private final CompletableFuture<Boolean> running = new CompletableFuture<>();
    private final Supplier<CompletionStage<Boolean>> hash = () -> {
        hashes.incrementAndGet();
        return running;
    };

    @Test
    void identicalChecksInFlightShareOneHashAndAllGetItsResult() throws Exception {
        List<CompletableFuture<Boolean>> answers = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            answers.add(checks.check("dev-1", "u", utf8("pw"), device, hash).toCompletableFuture());
        }
        assertEquals(1, hashes.get());
        assertEquals(19.0, registry.get("identity.bcrypt.joined").counter().count());
        running.complete(true);
        for (CompletableFuture<Boolean> answer : answers) {
            assertTrue(answer.get());
        }
    }

    @Test
    void differentPasswordsUsernamesOrStoredStringsNeverShare() {
        checks.check("dev-1", "u", utf8("pw"), device, hash);
        checks.check("dev-1", "u", utf8("pw2"), device, hash);
        checks.check("dev-1", "u2", utf8("pw"), device, hash);
        checks.check("dev-1", "u", utf8("pw"), new DeviceCredential("dev-1", null, "$2a$04$another-string",
                DeviceStatus.ACTIVE, false, List.of(), null, null, null), hash);
        assertEquals(4, hashes.get());
    }

    @Test
    void aCheckArrivingAfterTheSharedOneFinishedStartsAfresh() {
        checks.check("dev-1", "u", utf8("pw"), device, hash);
        running.complete(false);
        checks.check("dev-1", "u", utf8("pw"), device, () -> {
            hashes.incrementAndGet();
            return CompletableFuture.completedFuture(true);
        });
        assertEquals(2, hashes.get());
    }

    @Test
    void aRefusalReachesEveryJoinerAndLeavesNothingBehind() {
        CompletableFuture<Boolean> first = checks.check("dev-1", "u", utf8("pw"), device, hash).toCompletableFuture();
        CompletableFuture<Boolean> joiner = checks.check("dev-1", "u", utf8("pw"), device, hash)
                .toCompletableFuture();
        running.completeExceptionally(new IllegalStateException("refused"));
        assertThrows(ExecutionException.class, first::get);
        assertThrows(ExecutionException.class, joiner::get);

        CompletableFuture<Boolean> thrown = checks.check("dev-1", "u", utf8("pw"), device, () -> {
            throw new IllegalStateException("refused at once");
        }).toCompletableFuture();
        assertTrue(thrown.isCompletedExceptionally());
        assertEquals(0.0, registry.get("identity.bcrypt.flights").gauge().value());
    }

    @Test
    void oneCallersCancellationDoesNotCancelTheOthers() throws Exception {
        CompletableFuture<Boolean> first = checks.check("dev-1", "u", utf8("pw"), device, hash).toCompletableFuture();
        CompletableFuture<Boolean> second = checks.check("dev-1", "u", utf8("pw"), device, hash)
                .toCompletableFuture();
        first.cancel(false);
        running.complete(true);
        assertFalse(second.isCancelled());
        assertTrue(second.get());
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
