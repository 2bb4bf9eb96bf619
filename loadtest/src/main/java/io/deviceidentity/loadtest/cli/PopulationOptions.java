package io.deviceidentity.loadtest.cli;

import java.util.List;

import io.deviceidentity.loadtest.devices.PopulationPart;
import io.deviceidentity.loadtest.devices.PopulationSpec;
import picocli.CommandLine.Option;

/** The registered devices: how many, how they are named, which password they use. */
public final class PopulationOptions {

    @Option(names = "--devices", defaultValue = "100",
            description = "Registered devices <prefix>1..N (default: ${DEFAULT-VALUE}; `make up` seeds 100).")
    int devices;

    @Option(names = "--device-prefix", defaultValue = "demo-device-",
            description = "Client id prefix (default: ${DEFAULT-VALUE}).")
    String idPrefix;

    @Option(names = "--password-prefix", defaultValue = "demo-password-local-dev-",
            description = "Device N's password is <prefix>N (default: ${DEFAULT-VALUE}).")
    String passwordPrefix;

    @Option(names = "--shared-password",
            description = "Every device uses this password instead (populations seeded with one hash).")
    String sharedPassword;

    PopulationSpec spec(double wrongPasswordShare, double unknownShare, long seed) {
        return new PopulationSpec(devices, idPrefix, passwordPrefix, sharedPassword, wrongPasswordShare, unknownShare,
                seed);
    }

    /** With {@code parts} (none: the one part --devices/--device-prefix describe). */
    PopulationSpec spec(List<PopulationPart> parts, double wrongPasswordShare, double unknownShare, long seed) {
        if (parts.isEmpty()) {
            return spec(wrongPasswordShare, unknownShare, seed);
        }
        return new PopulationSpec(parts, passwordPrefix, sharedPassword, wrongPasswordShare, unknownShare, seed);
    }
}
