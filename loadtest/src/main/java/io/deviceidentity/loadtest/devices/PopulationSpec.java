package io.deviceidentity.loadtest.devices;

import java.util.List;

/**
 * Who the devices are. Registered devices are the {@link PopulationPart parts}' {@code idPrefix + n} for
 * n = 1..devices with password {@code passwordPrefix + n} (the naming {@code scripts/stack.sh} seeds:
 * demo-device-N / demo-password-local-dev-N), or {@code sharedPassword} for every device when the population was seeded with
 * one hash. Arrivals go to the parts by their shares (which add up to 1). A share of the registered devices presents
 * a wrong password; a share of arrivals comes from devices that were never registered.
 */
public record PopulationSpec(List<PopulationPart> parts, String passwordPrefix, String sharedPassword,
        double wrongPasswordShare, double unknownShare, long seed) {

    public PopulationSpec {
        parts = List.copyOf(parts);
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("a population needs at least one part");
        }
        if (parts.stream().map(PopulationPart::name).distinct().count() != parts.size()) {
            throw new IllegalArgumentException("the parts of a population need distinct names");
        }
        double shares = parts.stream().mapToDouble(PopulationPart::share).sum();
        if (Math.abs(shares - 1) > 1e-6) {
            throw new IllegalArgumentException("the parts' arrival shares add up to " + shares + ", not 1");
        }
        if (wrongPasswordShare < 0 || wrongPasswordShare > 1 || unknownShare < 0 || unknownShare >= 1) {
            throw new IllegalArgumentException("shares are fractions: 0 <= wrong-password <= 1, 0 <= unknown < 1");
        }
    }

    /** A population of one part: {@code idPrefix} 1..devices. */
    public PopulationSpec(int devices, String idPrefix, String passwordPrefix, String sharedPassword,
            double wrongPasswordShare, double unknownShare, long seed) {
        this(List.of(PopulationPart.whole(devices, idPrefix)), passwordPrefix, sharedPassword, wrongPasswordShare,
                unknownShare, seed);
    }

    /** Registered devices in all parts. */
    public int devices() {
        return parts.stream().mapToInt(PopulationPart::devices).sum();
    }

    /** The client id prefix of a one-part population (seeding, removing). */
    public String idPrefix() {
        if (parts.size() != 1) {
            throw new IllegalStateException("a population of several parts has no single prefix");
        }
        return parts.get(0).idPrefix();
    }

    /** Whether the reports give each part its own figures. */
    public boolean hasParts() {
        return parts.size() > 1;
    }

    public String passwordOf(int n) {
        return sharedPassword != null ? sharedPassword : passwordPrefix + n;
    }
}
