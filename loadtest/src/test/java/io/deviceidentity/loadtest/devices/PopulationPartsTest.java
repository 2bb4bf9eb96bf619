package io.deviceidentity.loadtest.devices;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

/** A population of several parts: how parts are written, checked, and how arrivals are shared among them. */
class PopulationPartsTest {

    private static PopulationSpec twoParts(int known, int cold) {
        return new PopulationSpec(List.of(new PopulationPart("known", "k-", known, 0.9),
                new PopulationPart("cold", "c-", cold, 0.1)), "pw-", "shared", 0, 0, 7);
    }

    @Test
    void aPartIsNamePrefixDevicesAndShare() {
        assertEquals(new PopulationPart("known", "bench-known-", 20000, 0.9),
                PopulationPart.parse("known:bench-known-:20000:0.9"));
        assertThrows(IllegalArgumentException.class, () -> PopulationPart.parse("known:bench-known-:20000"));
        assertThrows(IllegalArgumentException.class, () -> PopulationPart.parse("known:bench-known-:many:0.9"));
        assertThrows(IllegalArgumentException.class, () -> PopulationPart.parse("known:bench-known-:0:0.9"));
        assertThrows(IllegalArgumentException.class, () -> PopulationPart.parse("known:bench-known-:10:1.5"));
        assertThrows(IllegalArgumentException.class, () -> PopulationPart.parse("kn own:p-:10:0.5"));
    }

    @Test
    void sharesAddUpToOneAndNamesAreDistinct() {
        assertThrows(IllegalArgumentException.class, () -> new PopulationSpec(List.of(
                new PopulationPart("a", "a-", 1, 0.5), new PopulationPart("b", "b-", 1, 0.4)), "p", null, 0, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new PopulationSpec(List.of(
                new PopulationPart("a", "a-", 1, 0.5), new PopulationPart("a", "b-", 1, 0.5)), "p", null, 0, 0, 0));
        PopulationSpec spec = twoParts(20, 5);
        assertEquals(25, spec.devices());
        assertTrue(spec.hasParts());
        assertThrows(IllegalStateException.class, spec::idPrefix, "several parts have no single prefix");
        PopulationSpec single = new PopulationSpec(3, "d-", "pw-", null, 0, 0, 0);
        assertEquals("d-", single.idPrefix());
        assertEquals(List.of(PopulationPart.whole(3, "d-")), single.parts());
    }

    @Test
    void arrivalsGoToThePartsByTheirShares() {
        DevicePopulation population = new DevicePopulation(twoParts(20, 5));
        assertEquals(List.of("known", "cold"), population.partNames());
        int cold = 0;
        int draws = 20_000;
        for (int i = 0; i < draws; i++) {
            cold += population.nextPart() == 1 ? 1 : 0;
        }
        assertEquals(0.1, cold / (double) draws, 0.01);
    }

    @Test
    void eachPartHandsOutItsOwnDevicesUntilNoneIsIdle() {
        DevicePopulation population = new DevicePopulation(twoParts(3, 2));
        Set<String> cold = new HashSet<>();
        Device device;
        while ((device = population.takeIdle(1)) != null) {
            assertEquals(1, device.part);
            assertTrue(device.clientId.startsWith("c-"), device.clientId);
            cold.add(device.clientId);
        }
        assertEquals(Set.of("c-1", "c-2"), cold);
        assertEquals(3, population.idleCount(), "the known part is untouched");
        assertNull(population.takeIdle(1));
        // takeAnyIdle falls back to a part that still has an idle device.
        for (int i = 0; i < 3; i++) {
            Device known = population.takeAnyIdle();
            assertNotNull(known);
            assertEquals(0, known.part);
        }
        assertNull(population.takeAnyIdle());
        population.makeIdle(device = new Device("c-9", null, 1));
        assertEquals(device, population.takeIdle(1), "a device goes back to its own part");
    }
}
