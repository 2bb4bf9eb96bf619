package io.deviceidentity.loadtest.emqx;

import java.util.ArrayList;
import java.util.List;

/** Remembers what the client reported. */
final class RecordingListener implements CallListener {

    record Answered(Answer answer, long latencyNanos, boolean inTime) {
    }

    int offered;
    int expiredInQueue;
    int timedOut;
    int jammedConnectionsDropped;
    final List<Answered> answers = new ArrayList<>();

    @Override
    public void offered() {
        offered++;
    }

    @Override
    public void expiredInQueue() {
        expiredInQueue++;
    }

    @Override
    public void answered(Answer answer, long latencyNanos, boolean inTime) {
        answers.add(new Answered(answer, latencyNanos, inTime));
    }

    @Override
    public void jammedConnectionDropped() {
        jammedConnectionsDropped++;
    }

    @Override
    public void timedOut() {
        timedOut++;
    }
}
