package io.deviceidentity.overload;

import java.time.Duration;
import java.util.OptionalInt;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** Overload control shared by both services: the request deadline and the bounded bcrypt executor. */
@ConfigMapping(prefix = "identity.overload")
public interface OverloadConfig {

    /**
     * Time a request may take, measured from its arrival. Work that cannot finish inside it is refused with a 503.
     * Must stay below the caller's timeout minus one bcrypt (EMQX's {@code request_timeout} is 10 s in the chart).
     */
    @WithDefault("4s")
    Duration deadline();

    Bcrypt bcrypt();

    interface Bcrypt {
        /**
         * Hashes computed at once. Defaults to the CPUs the JVM sees, which in a container is its CPU limit: more
         * threads than cores only make every hash slower.
         */
        OptionalInt concurrency();

        /**
         * Hashes that may wait for a thread. Defaults to what the executor can finish within the deadline:
         * deadline ÷ expected duration × concurrency.
         */
        OptionalInt queue();

        /**
         * Starting estimate of one hash; replaced by a moving average of measured hashes once they run. Used to refuse
         * work at admission that could not finish before its deadline.
         */
        @WithDefault("80ms")
        Duration expectedDuration();
    }
}
