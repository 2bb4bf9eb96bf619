package io.deviceidentity.overload;

import java.util.Map;

/**
 * What makes one lane instance what it is, besides its policy: its name (threads {@code <name>-<n>}), its threads
 * and hard cap, the request deadline, the sentence each refusal is answered with, what each thread runs first (the
 * OS scheduling a lane is given, {@link BcryptScheduling}), and whether its answers are bounded by their deadline.
 *
 * @param deadlineTimer completes a request's answer with {@code deadline} when its deadline passes; null when the
 *                      caller bounds the answer itself
 */
record LaneSettings(String name, int concurrency, int queueCapacity, long requestDeadlineNanos,
        Map<Refusal, String> messages, Runnable onThreadStart, DeadlineTimer deadlineTimer) {

    LaneSettings {
        if (concurrency < 1) {
            throw new IllegalArgumentException("identity.overload." + name + ".concurrency must be at least 1");
        }
        if (queueCapacity < 0) {
            throw new IllegalArgumentException("identity.overload." + name + ".queue must not be negative");
        }
        messages = Map.copyOf(messages);
    }

    ServiceUnavailableException refusal(Refusal rule) {
        return rule == Refusal.DEADLINE ? ServiceUnavailableException.deadline()
                : ServiceUnavailableException.overload(messages.get(rule));
    }
}
