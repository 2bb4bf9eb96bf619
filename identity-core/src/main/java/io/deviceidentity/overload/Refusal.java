package io.deviceidentity.overload;

import java.util.Locale;

/**
 * The rule by which a lane refused a step or skipped it at start. The database lane's meters tag refusals with it
 * beside their share ({@code identity_database_refused_total{cause}}): whether the known fleet's reads or a flood's
 * were refused, and by which rule, is what an operator needs to tell an attack from a slow database
 * (docs/operations.md). The sentence a caller reads is the lane's own ({@link LaneSettings#messages()}).
 */
enum Refusal {
    /** {@link Share#OTHER} only: its unreserved threads are all taken. */
    SHARE_FULL,
    /** Every thread busy and no queue, or the queue's hard cap reached. */
    FULL,
    /** Every thread busy and none started or finished a step for longer than the allowed wait. */
    STALLED,
    /** The work ahead would not finish within the allowed wait. */
    EXPECTED_WAIT,
    /** The work ahead and its own would not finish before its deadline (a lane that judges by deadlines). */
    PAST_DEADLINE,
    /** Its own work would not finish before its deadline even on a free thread at the configured time per unit. */
    TOO_LONG_FOR_DEADLINE,
    /** Admitted to wait, and waited longer than allowed (or could no longer finish in time) when a thread took it. */
    WAITED,
    /** Its deadline had passed when a thread took it: nobody would read its answer. */
    DEADLINE;

    /** Refusals a step gets when a thread takes it, not before it joins the queue. */
    boolean atStart() {
        return this == WAITED || this == DEADLINE;
    }

    String tag() {
        return name().toLowerCase(Locale.ROOT);
    }
}
