package io.deviceidentity.management;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import java.util.OptionalInt;

import org.junit.jupiter.api.Test;

/** Where the management interface listens: an explicit port, else beside the main one, never Quarkus's shared 9000. */
class ManagementSettingsTest {

    @Test
    void anExplicitPortWins() {
        assertEquals(OptionalInt.of(9000), ManagementSettings.port("9000", "8081"));
    }

    @Test
    void unsetItIsTheMainPortPlusAThousand() {
        assertEquals(OptionalInt.of(9081), ManagementSettings.port(null, "8081"));
        assertEquals(OptionalInt.of(9082), ManagementSettings.port(null, "8082"));
    }

    @Test
    void aRandomMainPortLeavesItToQuarkus() {
        // Tests start the artifact with quarkus.http.port=0 and set the management port themselves.
        assertEquals(OptionalInt.empty(), ManagementSettings.port(null, "0"));
        assertEquals(OptionalInt.empty(), ManagementSettings.port(null, null));
    }

    @Test
    void aHostIsPassedOnAndUnsetLeavesQuarkusEveryInterface() {
        assertEquals(Map.of("quarkus.management.port", "9081", "quarkus.management.host", "127.0.0.1"),
                ManagementSettings.properties(null, "8081", "127.0.0.1"));
        assertEquals(Map.of("quarkus.management.port", "9000"), ManagementSettings.properties("9000", "8081", null));
    }
}
