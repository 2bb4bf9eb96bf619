package io.deviceidentity.overload;

/**
 * What a lane reports as it decides, for its meters ({@link BcryptMeters}, {@link DatabaseMeters}): each instance
 * chooses what to count, under the metric names docs and alerts rely on. Called on the hot path: cheap, no blocking.
 */
interface LaneListener {

    /** A step of {@code share} was refused (or skipped at start) by {@code rule}. */
    void refused(Share share, Refusal rule);

    /** A request's step was taken by a thread after waiting {@code nanos} (bulk steps are not reported). */
    void waited(long nanos);

    /** A request's step ran for {@code nanos}; {@code late} when its deadline had passed by the end. */
    void ran(long nanos, boolean late);
}
