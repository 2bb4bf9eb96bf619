package io.deviceidentity.overload;

/** Why a request was answered 503; the value appears in the JSON body, the outcome log line and metrics. */
public enum UnavailableReason {
    /**
     * Admission refused: the bcrypt lane and its queue are full, the request could not meet its deadline, no
     * database thread or no pooled connection became free in time ({@link PooledConnections}). The reasons are
     * listed once, in docs/api.md "503 reasons" (UnavailableReasonsTableTest).
     */
    OVERLOAD("overload"),
    /** The request's deadline passed before its answer was ready. */
    DEADLINE("deadline"),
    /** PostgreSQL or PgBouncer unreachable or refusing, a statement failed, or the circuit is open. */
    BACKEND_UNAVAILABLE("backend_unavailable");

    private final String label;

    UnavailableReason(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
