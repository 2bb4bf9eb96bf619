package io.deviceidentity.loadtest.emqx;

/**
 * What came back for one authn request, reduced to what EMQX and operators tell apart: the HTTP status (0 when no
 * answer came) and a label. For a 200 the label is the body's {@code result} ({@code allow}, {@code deny},
 * {@code ignore}); for 429/503 the body's {@code reason}; otherwise {@code http_<status>}, {@code timeout} or
 * {@code transport_error}.
 */
public record Answer(int status, String label) {

    public static final Answer TIMEOUT = new Answer(0, "timeout");
    public static final Answer TRANSPORT_ERROR = new Answer(0, "transport_error");

    /** The only answer EMQX turns into a connected device. */
    public boolean isAllow() {
        return status == 200 && "allow".equals(label);
    }

    /** Answers that were admitted and decided by the service (a 200), as opposed to refused or lost. */
    public boolean isAdmitted() {
        return status == 200;
    }

    public boolean isUnavailable() {
        return status == 503;
    }

    /** The key answers are counted under in reports, e.g. {@code "200 allow"}, {@code "503 overload"}. */
    public String key() {
        return status == 0 ? label : status + " " + label;
    }
}
