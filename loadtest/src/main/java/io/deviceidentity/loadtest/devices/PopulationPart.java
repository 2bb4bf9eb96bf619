package io.deviceidentity.loadtest.devices;

/**
 * One part of a device population: devices {@code idPrefix + 1 .. idPrefix + devices}, named {@code name} in the
 * reports, receiving {@code share} of the arrivals. A population with several parts models a storm whose devices
 * differ in what the service knows about them, e.g. {@code known} devices that authenticated before (the fast
 * path) and {@code cold} ones that never did (bcrypt).
 */
public record PopulationPart(String name, String idPrefix, int devices, double share) {

    public PopulationPart {
        if (name == null || name.isBlank() || !name.matches("[A-Za-z0-9_.-]+")) {
            throw new IllegalArgumentException("a part's name is letters, digits, '.', '_' or '-': '" + name + "'");
        }
        if (idPrefix == null || idPrefix.isEmpty()) {
            throw new IllegalArgumentException("part " + name + " needs a client id prefix");
        }
        if (devices < 1) {
            throw new IllegalArgumentException("part " + name + " needs at least 1 device");
        }
        if (!(share > 0) || share > 1) {
            throw new IllegalArgumentException("part " + name + ": its arrival share must be in (0, 1]");
        }
    }

    /** The population of a run without {@code --part}: everything in one part. */
    public static PopulationPart whole(int devices, String idPrefix) {
        return new PopulationPart("all", idPrefix, devices, 1.0);
    }

    /** {@code NAME:PREFIX:DEVICES:SHARE}, e.g. {@code known:bench-known-:20000:0.9}. */
    public static PopulationPart parse(String text) {
        String[] fields = text.split(":", -1);
        if (fields.length != 4) {
            throw new IllegalArgumentException("a part is NAME:PREFIX:DEVICES:SHARE (e.g. known:bench-known-:20000:0.9), "
                    + "not '" + text + "'");
        }
        try {
            return new PopulationPart(fields[0], fields[1], Integer.parseInt(fields[2]), Double.parseDouble(fields[3]));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("part '" + text + "': DEVICES is a whole number, SHARE a fraction");
        }
    }
}
