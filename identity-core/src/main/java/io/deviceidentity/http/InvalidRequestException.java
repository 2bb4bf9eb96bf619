package io.deviceidentity.http;

/** Bad input: answered with a 4xx JSON error and changes nothing. No stack trace: it is the caller's mistake. */
public final class InvalidRequestException extends RuntimeException {

    private final int status;
    private final String reason;

    public InvalidRequestException(int status, String reason, String message) {
        super(message, null, false, false);
        this.status = status;
        this.reason = reason;
    }

    public static InvalidRequestException badRequest(String reason, String message) {
        return new InvalidRequestException(400, reason, message);
    }

    public int status() {
        return status;
    }

    public String reason() {
        return reason;
    }
}
