package io.deviceidentity.registration.kicks;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

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

    private final ByHand executor = new ByHand();
    private int rounds;

    /** A gate whose first round calls {@code duringFirstRound} on it, as a poll or a commit would meanwhile. */
    private OneRoundAtATime gateThatDuringItsFirstRound(Consumer<OneRoundAtATime> duringFirstRound) {
        OneRoundAtATime[] gate = new OneRoundAtATime[1];
        gate[0] = new OneRoundAtATime(executor, () -> {
            if (++rounds == 1) {
                duringFirstRound.accept(gate[0]);
            }
        });
        return gate[0];
    }

    @Test
    void aPollWhileARoundRunsIsSkipped() {
        OneRoundAtATime gate = gateThatDuringItsFirstRound(OneRoundAtATime::poll);

        gate.poll();
        executor.runNext();

        assertEquals(1, rounds);
        assertEquals(0, executor.waiting.size(), "no second round was handed to the executor");
    }

    @Test
    void aNudgeWhileARoundRunsIsRunRightAfterItAndNeverAlongsideIt() {
        OneRoundAtATime gate = gateThatDuringItsFirstRound(during -> {
            during.nudge();
            during.nudge();
        });

        gate.poll();
        assertEquals(1, executor.waiting.size());
        executor.runNext();

        assertEquals(2, rounds, "the round, then one more for the nudges that came during it");
        assertEquals(0, executor.waiting.size(), "both on the one task: never two rounds at once");
    }

    @Test
    void aNudgeWhenIdleStartsARound() {
        OneRoundAtATime gate = gateThatDuringItsFirstRound(during -> { });

        gate.nudge();
        gate.nudge();
        executor.runNext();

        assertEquals(1, rounds, "two nudges before the round started: one round sees both kicks");
        assertEquals(0, executor.waiting.size());
    }
}
