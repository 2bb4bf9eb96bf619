package io.deviceidentity.loadtest.devices;

import io.vertx.core.buffer.Buffer;

/** One simulated device: the credentials it presents and where it is in its connect/retry cycle. */
final class Device {

    enum State { IDLE, CONNECTING, WAITING_TO_RETRY, CONNECTED, GAVE_UP }

    final String clientId;
    /** The EMQX request body for this device, built once: it never changes. */
    final Buffer body;
    /** Index of the device's {@link PopulationPart} in the population (0 for unknown devices). */
    final int part;
    State state = State.IDLE;
    int failures;
    /** Position in its part's idle list while IDLE, for O(1) removal. */
    int idleSlot = -1;

    Device(String clientId, Buffer body, int part) {
        this.clientId = clientId;
        this.body = body;
        this.part = part;
    }
}
