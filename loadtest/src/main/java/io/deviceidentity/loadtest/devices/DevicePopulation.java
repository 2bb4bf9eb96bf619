package io.deviceidentity.loadtest.devices;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import io.deviceidentity.loadtest.emqx.AuthnBody;

/**
 * The registered devices (built once, before the run starts: tens of thousands of request bodies are not built on
 * the event loop), with the idle ones (not connected, not connecting, not waiting to retry) kept per
 * {@link PopulationPart part} in a list that allows picking a random one and removing it in O(1). An arrival goes to
 * a part drawn by the parts' shares, then to a random idle device of that part. Unknown devices are made up on
 * demand (they count under the first part).
 */
public final class DevicePopulation {

    private static final String PEERHOST = "127.0.0.1";

    private final List<List<Device>> idle = new ArrayList<>();
    private final PopulationSpec spec;
    private final SplittableRandom random;
    private final double[] cumulativeShares;
    private int unknownCount;

    public DevicePopulation(PopulationSpec spec) {
        this.spec = spec;
        this.random = new SplittableRandom(spec.seed());
        List<PopulationPart> parts = spec.parts();
        this.cumulativeShares = new double[parts.size()];
        double sum = 0;
        for (int p = 0; p < parts.size(); p++) {
            PopulationPart part = parts.get(p);
            sum += part.share();
            cumulativeShares[p] = sum;
            idle.add(new ArrayList<>(part.devices()));
            for (int n = 1; n <= part.devices(); n++) {
                boolean wrong = random.nextDouble() < spec.wrongPasswordShare();
                String password = wrong ? "wrong-" + spec.passwordOf(n) : spec.passwordOf(n);
                String clientId = part.idPrefix() + n;
                makeIdle(new Device(clientId, AuthnBody.of(clientId, "", password, PEERHOST), p));
            }
        }
        cumulativeShares[parts.size() - 1] = 1.0;
    }

    /** The parts' names, in order (index = {@link Device#part}). */
    public List<String> partNames() {
        return spec.parts().stream().map(PopulationPart::name).toList();
    }

    /** The part the next arrival belongs to (no random draw for a population of one part). */
    int nextPart() {
        if (cumulativeShares.length == 1) {
            return 0;
        }
        double draw = random.nextDouble();
        for (int p = 0; p < cumulativeShares.length; p++) {
            if (draw < cumulativeShares[p]) {
                return p;
            }
        }
        return cumulativeShares.length - 1;
    }

    /** A random idle device of {@code part}, now no longer idle; null when every device of it is busy or connected. */
    Device takeIdle(int part) {
        List<Device> candidates = idle.get(part);
        if (candidates.isEmpty()) {
            return null;
        }
        Device device = candidates.get(random.nextInt(candidates.size()));
        removeIdle(device);
        return device;
    }

    /** A random idle device of a part drawn by share; null when that part has none idle. */
    Device takeIdle() {
        return takeIdle(nextPart());
    }

    /** Like {@link #takeIdle()}, but falls back to any other part with an idle device. */
    Device takeAnyIdle() {
        Device device = takeIdle();
        for (int p = 0; device == null && p < idle.size(); p++) {
            device = takeIdle(p);
        }
        return device;
    }

    /** Idle devices in all parts. */
    int idleCount() {
        return idle.stream().mapToInt(List::size).sum();
    }

    /** Whether the next arrival is a device that was never registered. */
    boolean nextArrivalIsUnknown() {
        return spec.unknownShare() > 0 && random.nextDouble() < spec.unknownShare();
    }

    Device newUnknown() {
        String clientId = "unknown-device-" + (++unknownCount);
        return new Device(clientId, AuthnBody.of(clientId, "", "some-password", PEERHOST), 0);
    }

    void makeIdle(Device device) {
        device.state = Device.State.IDLE;
        List<Device> list = idle.get(device.part);
        device.idleSlot = list.size();
        list.add(device);
    }

    private void removeIdle(Device device) {
        List<Device> list = idle.get(device.part);
        int slot = device.idleSlot;
        Device last = list.remove(list.size() - 1);
        if (last != device) {
            list.set(slot, last);
            last.idleSlot = slot;
        }
        device.idleSlot = -1;
    }

    SplittableRandom random() {
        return random;
    }
}
