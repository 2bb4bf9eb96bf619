package io.deviceidentity.overload;

/**
 * Whether a database-lane refusal is told as {@code overload} or as {@code backend_unavailable}: the one place that
 * decides it. A step's failure is classified ({@link BackendFailures}: a database error is
 * {@code backend_unavailable}, never a 500). While the last request step that reached the database failed as
 * {@code backend_unavailable} (and none has succeeded since), the lane's threads are full of steps waiting for a
 * database that does not answer (a failover, a lost PgBouncer): a refusal or a deadline passed in the lane is then
 * told as the database's fault, not as overload of this service, which is what an operator and the failover verdicts
 * must see.
 */
final class DatabaseAttribution implements Attribution {

    private volatile boolean databaseFailing;

    @Override
    public ServiceUnavailableException told(ServiceUnavailableException refusal) {
        return databaseFailing ? databaseDown() : refusal;
    }

    @Override
    public Throwable failed(Throwable thrown, boolean forRequest) {
        if (thrown instanceof Error) {
            return thrown;
        }
        RuntimeException failure = BackendFailures.classify(thrown);
        if (forRequest && failure instanceof ServiceUnavailableException unavailable
                && unavailable.reason() == UnavailableReason.BACKEND_UNAVAILABLE) {
            databaseFailing = true;
        }
        return failure;
    }

    @Override
    public void succeeded() {
        databaseFailing = false;
    }

    private static ServiceUnavailableException databaseDown() {
        return ServiceUnavailableException.backendUnavailable("the database threads wait on a database that does not"
                + " answer", 1);
    }
}
