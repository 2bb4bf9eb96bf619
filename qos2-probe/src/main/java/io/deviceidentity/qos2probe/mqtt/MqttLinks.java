package io.deviceidentity.qos2probe.mqtt;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;

import io.deviceidentity.qos2probe.verdict.Packet;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;

/**
 * How the probe's connections are opened: on one event loop group, in plain MQTT or in MQTT over TLS (the chart's
 * 8883) verified as a device verifies its broker: the certificate must chain to the given CA and name the host the
 * probe dialled. No client certificate: devices authenticate with their password.
 */
public final class MqttLinks {

    private final EventLoopGroup group;
    private final SslContext tls;

    private MqttLinks(EventLoopGroup group, SslContext tls) {
        this.group = group;
        this.tls = tls;
    }

    /** Plain MQTT (1883). */
    public static MqttLinks plain(EventLoopGroup group) {
        return new MqttLinks(group, null);
    }

    /** MQTT over TLS, trusting the certificates of {@code caFile} (PEM) only. */
    public static MqttLinks tls(EventLoopGroup group, Path caFile) {
        if (!Files.isReadable(caFile)) {
            throw new IllegalArgumentException("cannot read the CA file " + caFile);
        }
        try {
            return new MqttLinks(group, SslContextBuilder.forClient().trustManager(caFile.toFile()).build());
        } catch (SSLException | IllegalArgumentException e) {
            throw new IllegalArgumentException("no CA certificate in " + caFile + ": " + e.getMessage(), e);
        }
    }

    public boolean encrypted() {
        return tls != null;
    }

    /** {@link MqttLink#open}, with this group and, when encrypted, TLS first. */
    public MqttLink open(BrokerAddress broker, Duration timeout, int keepAliveSeconds,
            Function<Packet, Optional<Packet>> handler) throws InterruptedException {
        return MqttLink.open(group, this, broker, timeout, keepAliveSeconds, handler);
    }

    /** The TLS handler for a new connection to {@code broker}, or null for plain MQTT. */
    SslHandler handlerFor(SocketChannel channel, BrokerAddress broker) {
        if (tls == null) {
            return null;
        }
        SSLEngine engine = tls.newEngine(channel.alloc(), broker.host(), broker.port());
        SSLParameters parameters = engine.getSSLParameters();
        // The host name is checked as HTTPS does (RFC 2818): a certificate of the same CA for another name is refused.
        parameters.setEndpointIdentificationAlgorithm("HTTPS");
        engine.setSSLParameters(parameters);
        return new SslHandler(engine);
    }

    static String describe(Throwable cause) {
        Throwable root = cause;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root instanceof IOException || root.getMessage() == null ? root.toString() : root.getMessage();
    }
}
