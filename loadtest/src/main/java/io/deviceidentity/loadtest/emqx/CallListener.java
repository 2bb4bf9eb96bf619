package io.deviceidentity.loadtest.emqx;

/** Told everything that happens to authn calls; the recorder implements it. Called on the event loop only. */
public interface CallListener {

    /** The request reached the HTTP client (EMQX's {@code gen_server:call}). */
    void offered();

    /** It waited in a worker's queue past its expiry and was dropped without being sent (ehttpc drop_expired). */
    void expiredInQueue();

    /**
     * An answer arrived. {@code inTime} is false when it arrived after the call's expiry (request_timeout after it
     * entered the worker's queue): EMQX dropped it unread, the service did the work for nobody.
     */
    void answered(Answer answer, long latencyNanos, boolean inTime);

    /**
     * The same answer's time from being sent on the connection to its arrival: the service's own time, without the
     * wait in EMQX's queue. Shows whether refusals are fast where they are made.
     */
    default void serviceTime(Answer answer, long sentToAnswerNanos) {
    }

    /** The same answer, for per-replica figures: which replica ({@link Transport#target()}) gave it. */
    default void answeredBy(String replica, Answer answer, boolean inTime) {
    }

    /**
     * A worker's connection was dropped as jammed (every request on it expired more than {@code max_inactive} ago
     * without an answer, ehttpc's {@code check_gun_jammed}); its next request opens a new connection.
     */
    default void jammedConnectionDropped() {
    }

    /** The caller got EMQX's timeout, request_timeout + 0.5 s after its call, without an answer in time. */
    void timedOut();
}
