package io.deviceidentity.registration.kicks;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.Executor;

import org.junit.jupiter.api.Test;

/**
 * The delivery rounds' rule, on an executor the test runs by hand: what a poll or a nudge does while a round runs.
 */
class OneRoundAtATimeTest {

    /** Runs what it was given only when the test says so. */
    private static final class ByHand implements Executor {
        final Queue<Runnable> waiting = new ArrayDeque<>();

        @Override
        public void execute(Runnable task) {
            waiting.add(task);
        }

        void runNext() {
            waiting.remove().run();
        }
    }

    @Test
    void aPollWhileARoundRunsIsSkipped() {
        ByHand executor = new ByHand();
        int[] rounds = {0};
        OneRoundAtATime[] gate = new OneRoundAtATime[1];
        gate[0] = new OneRoundAtATime(executor, () -> {
            rounds[0]++;
            if (rounds[0] == 1) {
                gate[0].poll();
            }
        });

        gate[0].poll();
        executor.runNext();

        assertEquals(1, rounds[0]);
        assertEquals(0, executor.waiting.size(), "no second round was handed to the executor");
    }

    @Test
    void aNudgeWhileARoundRunsIsRunRightAfterItAndNeverAlongsideIt() {
        ByHand executor = new ByHand();
        int[] rounds = {0};
        OneRoundAtATime[] gate = new OneRoundAtATime[1];
        gate[0] = new OneRoundAtATime(executor, () -> {
            rounds[0]++;
            if (rounds[0] == 1) {
                gate[0].nudge();
                gate[0].nudge();
            }
        });

        gate[0].poll();
        assertEquals(1, executor.waiting.size());
        executor.runNext();

        assertEquals(2, rounds[0], "the round, then one more for the nudges that came during it");
        assertEquals(0, executor.waiting.size(), "both on the one task: never two rounds at once");
    }

    @Test
    void aNudgeWhenIdleStartsARound() {
        ByHand executor = new ByHand();
        int[] rounds = {0};
        OneRoundAtATime gate = new OneRoundAtATime(executor, () -> rounds[0]++);

        gate.nudge();
        gate.nudge();
        executor.runNext();

        assertEquals(1, rounds[0], "two nudges before the round started: one round sees both kicks");
        assertEquals(0, executor.waiting.size());
    }
}
