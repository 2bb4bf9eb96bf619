package io.deviceidentity.qos2probe.probe;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import io.deviceidentity.qos2probe.mqtt.BrokerAddress;
import io.deviceidentity.qos2probe.mqtt.ConnectSpec;
import io.deviceidentity.qos2probe.mqtt.MqttLink;
import io.deviceidentity.qos2probe.mqtt.MqttLinks;
import io.deviceidentity.qos2probe.verdict.Packet;
import io.deviceidentity.qos2probe.verdict.Qos2Receiver;
import io.deviceidentity.qos2probe.verdict.ReasonCodes;
import io.netty.handler.codec.mqtt.MqttQoS;

/**
 * The QoS 2 subscriber with a persistent session on one node. It counts what its application would see (through
 * {@link Qos2Receiver}, which drops protocol retransmissions) and stays connected: when the broker goes away (a
 * restart in the tests) a background thread reconnects with clean_start=false and subscribes again if the broker
 * says the session is gone, so the publisher can wait for it before its own reconnect.
 */
public final class Subscriber implements AutoCloseable {

    private final MqttLinks links;
    private final BrokerAddress broker;
    private final ConnectSpec spec;
    private final List<String> filters;
    private final Duration timeout;
    private final Qos2Receiver receiver = new Qos2Receiver();
    private final Object lock = new Object();
    private volatile MqttLink link;
    private volatile boolean ready;
    private volatile boolean closing;
    private volatile String lastProblem;
    private Thread keeper;
    private int nextPacketId = 1;

    public Subscriber(MqttLinks links, BrokerAddress broker, ConnectSpec spec, List<String> filters,
            Duration timeout) {
        this.links = links;
        this.broker = broker;
        this.spec = spec;
        this.filters = List.copyOf(filters);
        this.timeout = timeout;
    }

    /** Resets the session (nothing left from an earlier run), connects and subscribes; throws if refused. */
    public void start() throws InterruptedException {
        String reset = Sessions.reset(links, broker, spec, timeout);
        if (reset != null) {
            throw new IllegalStateException("subscriber " + spec.clientId() + ": " + reset);
        }
        if (!connectAndSubscribe(false)) {
            throw new IllegalStateException("subscriber " + spec.clientId() + " on " + broker + ": " + lastProblem);
        }
        keeper = new Thread(this::keepConnected, "qos2-probe-subscriber");
        keeper.setDaemon(true);
        keeper.start();
    }

    private boolean connectAndSubscribe(boolean cleanStart) throws InterruptedException {
        MqttLink opened;
        try {
            opened = links.open(broker, timeout, spec.keepAliveSeconds(), this::onPacket);
        } catch (MqttLink.LinkException e) {
            lastProblem = e.getMessage();
            return false;
        }
        Packet connack = opened.connect(spec.withCleanStart(cleanStart), timeout);
        if (connack == null || connack.type() != Packet.Type.CONNACK || connack.reasonCode() != 0) {
            lastProblem = "connect: " + (connack == null ? "no CONNACK" : connack);
            opened.drop();
            return false;
        }
        link = opened;
        if (!connack.sessionPresent()) {
            // A new session has no subscriptions (the first one, or the broker lost it): subscribe again.
            for (String filter : filters) {
                int id = nextPacketId++;
                opened.subscribe(id, MqttQoS.EXACTLY_ONCE, filter);
                Packet suback = opened.await(p -> p.type() == Packet.Type.SUBACK && p.packetId() == id, timeout);
                if (suback == null || suback.type() != Packet.Type.SUBACK
                        || ReasonCodes.isFailure(suback.reasonCode())) {
                    lastProblem = "subscribe " + filter + ": " + (suback == null ? "no SUBACK" : suback);
                    opened.drop();
                    return false;
                }
            }
        }
        ready = true;
        return true;
    }

    private Optional<Packet> onPacket(Packet packet) {
        if (packet.endsConnection()) {
            ready = false;
        }
        synchronized (lock) {
            return receiver.onPacket(packet);
        }
    }

    private void keepConnected() {
        try {
            while (!closing) {
                MqttLink current = link;
                if (current != null && current.isOpen()) {
                    Thread.sleep(50);
                    continue;
                }
                ready = false;
                if (!connectAndSubscribe(false)) {
                    Thread.sleep(200);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits until the subscriber is connected and subscribed. */
    public boolean awaitReady(Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (!ready) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(20);
        }
        return true;
    }

    public int deliveries(String payload) {
        synchronized (lock) {
            return receiver.deliveries(payload);
        }
    }

    public int retransmissions() {
        synchronized (lock) {
            return receiver.retransmissions();
        }
    }

    public String lastProblem() {
        return lastProblem;
    }

    @Override
    public void close() throws InterruptedException {
        closing = true;
        if (keeper != null) {
            keeper.interrupt();
            keeper.join(2000);
        }
        MqttLink current = link;
        if (current != null) {
            current.disconnect();
        }
    }
}
