package io.deviceidentity.loadtest.emqx;

/** Listeners told the same things. */
public final class CallListeners {

    private CallListeners() {
    }

    /** Tells {@code first}, then {@code second}, everything. */
    public static CallListener both(CallListener first, CallListener second) {
        return new CallListener() {
            @Override
            public void offered() {
                first.offered();
                second.offered();
            }

            @Override
            public void expiredInQueue() {
                first.expiredInQueue();
                second.expiredInQueue();
            }

            @Override
            public void answered(Answer answer, long latencyNanos, boolean inTime) {
                first.answered(answer, latencyNanos, inTime);
                second.answered(answer, latencyNanos, inTime);
            }

            @Override
            public void serviceTime(Answer answer, long sentToAnswerNanos) {
                first.serviceTime(answer, sentToAnswerNanos);
                second.serviceTime(answer, sentToAnswerNanos);
            }

            @Override
            public void answeredBy(String replica, Answer answer, boolean inTime) {
                first.answeredBy(replica, answer, inTime);
                second.answeredBy(replica, answer, inTime);
            }

            @Override
            public void jammedConnectionDropped() {
                first.jammedConnectionDropped();
                second.jammedConnectionDropped();
            }

            @Override
            public void timedOut() {
                first.timedOut();
                second.timedOut();
            }
        };
    }
}
