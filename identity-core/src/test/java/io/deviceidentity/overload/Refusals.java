package io.deviceidentity.overload;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/** The 503 reason a refused future failed with; an answer instead of a refusal fails the test. */
final class Refusals {

    private Refusals() {
    }

    static UnavailableReason reasonOf(CompletableFuture<?> future) {
        try {
            future.get(5, TimeUnit.SECONDS);
        } catch (ExecutionException failed) {
            return assertInstanceOf(ServiceUnavailableException.class, failed.getCause()).reason();
        } catch (Exception other) {
            throw new AssertionError(other);
        }
        throw new AssertionError("expected a refusal, got an answer");
    }
}
