package io.deviceidentity.testsupport.config;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
import io.smallrye.config.WithParentName;

/** A mapping with every shape ServiceConfiguration names: nested, renamed, flattened, optional groups and leaves. */
@ConfigMapping(prefix = "fixture")
interface FixtureConfig {

    @WithDefault("4s")
    Duration deadline();

    Optional<String> secret();

    List<String> tokens();

    Nested nested();

    @WithName("renamed")
    @WithDefault("7")
    int originalName();

    @WithParentName
    Flat flat();

    Optional<Maybe> maybe();

    /** Computed from the others: not a key. */
    default boolean deadlineIsLong() {
        return deadline().toSeconds() > 10;
    }

    interface Nested {
        @WithDefault("true")
        boolean maxTrackedDevices();

        OptionalInt size();
    }

    interface Flat {
        @WithDefault("x")
        String inParent();
    }

    interface Maybe {
        @WithDefault("1")
        int count();
    }
}
