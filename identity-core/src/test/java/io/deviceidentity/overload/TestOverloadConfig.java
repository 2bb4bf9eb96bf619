package io.deviceidentity.overload;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * An {@link OverloadConfig} for unit tests: the documented defaults, with the numbers a test cares about. Bcrypt
 * threads run at normal priority here (the service's default is SCHED_IDLE): on a machine whose cores another
 * process keeps busy, a SCHED_IDLE thread gets a fraction of a percent of a core and a test's bounded wait for its
 * work would measure the machine, not the executor. The test about SCHED_IDLE itself asks for it.
 */
record TestOverloadConfig(Duration deadline, int concurrency, OptionalInt queue, Duration maxWait,
        Optional<Duration> targetWait, Duration interval, boolean idlePriority) implements OverloadConfig {

    static TestOverloadConfig defaults() {
        return new TestOverloadConfig(Duration.ofSeconds(4), 1, OptionalInt.empty(), Duration.ofSeconds(1),
                Optional.empty(), Duration.ofMillis(100), false);
    }

    TestOverloadConfig withIdlePriority(boolean value) {
        return new TestOverloadConfig(deadline, concurrency, queue, maxWait, targetWait, interval, value);
    }

    TestOverloadConfig withDeadline(Duration value) {
        return new TestOverloadConfig(value, concurrency, queue, maxWait, targetWait, interval, idlePriority);
    }

    TestOverloadConfig withConcurrency(int value) {
        return new TestOverloadConfig(deadline, value, queue, maxWait, targetWait, interval, idlePriority);
    }

    TestOverloadConfig withQueue(int value) {
        return new TestOverloadConfig(deadline, concurrency, OptionalInt.of(value), maxWait, targetWait, interval,
                idlePriority);
    }

    TestOverloadConfig withMaxWait(Duration value) {
        return new TestOverloadConfig(deadline, concurrency, queue, value, targetWait, interval, idlePriority);
    }

    @Override
    public Duration refusalLogInterval() {
        return Duration.ofSeconds(10);
    }

    @Override
    public Bcrypt bcrypt() {
        TestOverloadConfig self = this;
        return new Bcrypt() {
            public OptionalInt concurrency() {
                return OptionalInt.of(self.concurrency);
            }

            public Duration maxWait() {
                return self.maxWait;
            }

            public Optional<Duration> targetWait() {
                return self.targetWait;
            }

            public Duration interval() {
                return self.interval;
            }

            public OptionalInt queue() {
                return self.queue;
            }

            public Duration expectedDuration() {
                return Duration.ofMillis(80);
            }

            public Optional<Boolean> idlePriority() {
                return Optional.of(self.idlePriority);
            }
        };
    }

    @Override
    public Database database() {
        return new Database() {
            @Override
            public OptionalInt concurrency() {
                return OptionalInt.empty();
            }

            @Override
            public Duration maxWait() {
                return Duration.ZERO;
            }

            @Override
            public int queue() {
                return 0;
            }

            @Override
            public double reservedForKnown() {
                return 0;
            }
        };
    }
}
