package io.deviceidentity.http;

/** A caller (for auth-service: one device) made too many attempts: answered 429 with {@code Retry-After}, reason {@code rate_limited}. */
public final class RateLimitedException extends RuntimeException {

    private final long retryAfterSeconds;

    public RateLimitedException(long retryAfterSeconds) {
        super("too many attempts for this device", null, false, false);
        this.retryAfterSeconds = Math.max(1, retryAfterSeconds);
    }

    public long retryAfterSeconds() {
        return retryAfterSeconds;
    }
}
