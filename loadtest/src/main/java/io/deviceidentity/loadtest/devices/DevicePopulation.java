package io.deviceidentity.loadtest.devices;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import io.deviceidentity.loadtest.emqx.AuthnBody;

/**
 * The registered devices (built once, before the run starts: tens of thousands of request bodies are not built on
 * the event loop), with the idle ones (not connected, not connecting, not waiting to retry) kept in a list
 * that allows picking a random one and removing it in O(1). Unknown devices are made up on demand.
 */
public final class DevicePopulation {

    private static final String PEERHOST = "127.0.0.1";

    private final List<Device> idle = new ArrayList<>();
    private final PopulationSpec spec;
    private final SplittableRandom random;
    private int unknownCount;

    public DevicePopulation(PopulationSpec spec) {
        this.spec = spec;
        this.random = new SplittableRandom(spec.seed());
        for (int n = 1; n <= spec.devices(); n++) {
            boolean wrong = random.nextDouble() < spec.wrongPasswordShare();
            String password = wrong ? "wrong-" + spec.passwordOf(n) : spec.passwordOf(n);
            String clientId = spec.idPrefix() + n;
            makeIdle(new Device(clientId, AuthnBody.of(clientId, "", password, PEERHOST)));
        }
    }

    /** A random idle registered device, now no longer idle; null when every device is busy or connected. */
    Device takeIdle() {
        if (idle.isEmpty()) {
            return null;
        }
        Device device = idle.get(random.nextInt(idle.size()));
        removeIdle(device);
        return device;
    }

    /** Whether the next arrival is a device that was never registered. */
    boolean nextArrivalIsUnknown() {
        return spec.unknownShare() > 0 && random.nextDouble() < spec.unknownShare();
    }

    Device newUnknown() {
        String clientId = "unknown-device-" + (++unknownCount);
        return new Device(clientId, AuthnBody.of(clientId, "", "some-password", PEERHOST));
    }

    void makeIdle(Device device) {
        device.state = Device.State.IDLE;
        device.idleSlot = idle.size();
        idle.add(device);
    }

    private void removeIdle(Device device) {
        int slot = device.idleSlot;
        Device last = idle.remove(idle.size() - 1);
        if (last != device) {
            idle.set(slot, last);
            last.idleSlot = slot;
        }
        device.idleSlot = -1;
    }

    SplittableRandom random() {
        return random;
    }
}
