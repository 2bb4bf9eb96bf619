package io.deviceidentity.overload;

/**
 * Whose work a lane step is. A lane lets {@link #OTHER} work hold at most its unreserved threads, running or waiting
 * ({@link Partitions}), so that a flood of invented client ids can fill its own share and never the threads the known
 * fleet's reads need.
 */
public enum Share {
    /** For a client id known to exist: may use every thread. */
    KNOWN,
    /** Anything else (unknown ids, a source over its failure budget): may hold at most the unreserved threads. */
    OTHER
}
