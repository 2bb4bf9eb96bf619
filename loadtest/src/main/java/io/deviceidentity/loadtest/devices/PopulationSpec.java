package io.deviceidentity.loadtest.devices;

/**
 * Who the devices are. Registered devices are {@code idPrefix + n} for n = 1..devices with password
 * {@code passwordPrefix + n} (the naming {@code scripts/stack.sh} seeds: demo-device-N / demo-password-N), or
 * {@code sharedPassword} for every device when the population was seeded with one hash. A share of the registered
 * devices presents a wrong password; a share of arrivals comes from devices that were never registered.
 */
public record PopulationSpec(int devices, String idPrefix, String passwordPrefix, String sharedPassword,
        double wrongPasswordShare, double unknownShare, long seed) {

    public PopulationSpec {
        if (devices < 1) {
            throw new IllegalArgumentException("--devices must be at least 1");
        }
        if (wrongPasswordShare < 0 || wrongPasswordShare > 1 || unknownShare < 0 || unknownShare >= 1) {
            throw new IllegalArgumentException("shares are fractions: 0 <= wrong-password <= 1, 0 <= unknown < 1");
        }
    }

    public String passwordOf(int n) {
        return sharedPassword != null ? sharedPassword : passwordPrefix + n;
    }
}
