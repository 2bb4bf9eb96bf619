package io.deviceidentity.overload;

/**
 * A request that cannot be answered in time: mapped to 503 with {@code Retry-After} and its reason. Carries no
 * stack trace because it is an expected outcome under load, raised thousands of times a second in a storm.
 */
public final class ServiceUnavailableException extends RuntimeException {

    private final UnavailableReason reason;
    private final int retryAfterSeconds;

    public ServiceUnavailableException(UnavailableReason reason, String message, int retryAfterSeconds) {
        super(message, null, false, false);
        this.reason = reason;
        this.retryAfterSeconds = Math.max(1, retryAfterSeconds);
    }

    public static ServiceUnavailableException overload(String message) {
        return new ServiceUnavailableException(UnavailableReason.OVERLOAD, message, 1);
    }

    public static ServiceUnavailableException deadline() {
        return new ServiceUnavailableException(UnavailableReason.DEADLINE, "the request deadline passed", 1);
    }

    public static ServiceUnavailableException backendUnavailable(String message, int retryAfterSeconds) {
        return new ServiceUnavailableException(UnavailableReason.BACKEND_UNAVAILABLE, message, retryAfterSeconds);
    }

    public UnavailableReason reason() {
        return reason;
    }

    public int retryAfterSeconds() {
        return retryAfterSeconds;
    }
}
