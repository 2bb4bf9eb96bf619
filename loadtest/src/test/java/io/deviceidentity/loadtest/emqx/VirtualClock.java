package io.deviceidentity.loadtest.emqx;

import java.time.Duration;
import java.util.Comparator;
import java.util.HashSet;
import java.util.PriorityQueue;
import java.util.Set;

/** A clock that moves only when told to; timers due on the way fire in order. */
final class VirtualClock implements EmqxClock {

    private record Timer(long due, long id, Runnable task) {
    }

    private final PriorityQueue<Timer> timers =
            new PriorityQueue<>(Comparator.comparingLong(Timer::due).thenComparingLong(Timer::id));
    private final Set<Long> cancelled = new HashSet<>();
    private long now = 1_000_000_000L;
    private long nextId;

    @Override
    public long nanoTime() {
        return now;
    }

    @Override
    public long schedule(long delayNanos, Runnable task) {
        long id = nextId++;
        timers.add(new Timer(now + delayNanos, id, task));
        return id;
    }

    @Override
    public void cancel(long timerId) {
        cancelled.add(timerId);
    }

    void advance(Duration by) {
        long target = now + by.toNanos();
        while (!timers.isEmpty() && timers.peek().due() <= target) {
            Timer timer = timers.poll();
            now = timer.due();
            if (!cancelled.remove(timer.id())) {
                timer.task().run();
            }
        }
        now = target;
    }
}
