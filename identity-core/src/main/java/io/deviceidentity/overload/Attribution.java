package io.deviceidentity.overload;

import java.util.concurrent.CompletableFuture;

/**
 * Whose fault a lane's refusals and failures are told to be. The bcrypt lane tells them as they are; the database
 * lane tells them as the database's while the database holds or fails its steps ({@link DatabaseAttribution}).
 */
interface Attribution {

    /** Tells refusals as they are and passes failures through: the bcrypt lane's work cannot fail a backend. */
    Attribution AS_IS = new Attribution() {
        @Override
        public ServiceUnavailableException told(ServiceUnavailableException refusal) {
            return refusal;
        }

        @Override
        public ServiceUnavailableException expired() {
            return ServiceUnavailableException.deadline();
        }

        @Override
        public void started(long at) {
        }

        @Override
        public Throwable failed(Throwable thrown, boolean forRequest) {
            return thrown;
        }

        @Override
        public void succeeded(boolean drained) {
        }
    };

    /** What the caller of a refused or skipped step is told instead of {@code refusal}, now. */
    ServiceUnavailableException told(ServiceUnavailableException refusal);

    /**
     * The refusal as the caller's future: failed with {@link #told} now, or (the database lane) a moment later, once
     * its cause is clear.
     */
    default <T> CompletableFuture<T> tell(ServiceUnavailableException refusal) {
        return CompletableFuture.failedFuture(told(refusal));
    }

    /** What a request whose deadline passed before its decision is told. */
    ServiceUnavailableException expired();

    /** A request's step starts running on the current thread at {@code at} (the lane's clock). */
    void started(long at);

    /** What a step's failure is answered as; {@code forRequest} is false for a bulk step. */
    Throwable failed(Throwable thrown, boolean forRequest);

    /** A request's step ran and succeeded; {@code drained}: the lane has room again (another thread is idle). */
    void succeeded(boolean drained);
}
