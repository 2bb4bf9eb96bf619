package io.deviceidentity.qos2probe.mqtt;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;

import io.deviceidentity.qos2probe.verdict.Packet;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.mqtt.MqttDecoder;
import io.netty.handler.codec.mqtt.MqttEncoder;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.handler.codec.mqtt.MqttVersion;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;

/**
 * One TCP connection to one broker node, speaking MQTT through Netty's codec and nothing else: no client library
 * that would send PUBREL on its own, resend on reconnect or hide a reason code. Every packet from the broker is
 * turned into a {@link Packet}; an optional handler (the subscriber's QoS 2 receiver) answers on the event loop,
 * and everything is also queued for {@link #await}. The end of the connection arrives as a {@code CLOSED} packet.
 */
public final class MqttLink implements AutoCloseable {

    private final Channel channel;
    private final BlockingQueue<Packet> inbound;

    private MqttLink(Channel channel, BlockingQueue<Packet> inbound) {
        this.channel = channel;
        this.inbound = inbound;
    }

    /**
     * Opens the TCP connection (no CONNECT yet), and with {@code links} encrypted, completes the TLS handshake.
     * {@code handler} may return a reply to write at once; null for none.
     */
    static MqttLink open(EventLoopGroup group, MqttLinks links, BrokerAddress broker, Duration timeout,
            int keepAliveSeconds, Function<Packet, Optional<Packet>> handler) throws InterruptedException {
        BlockingQueue<Packet> inbound = new LinkedBlockingQueue<>();
        Bootstrap bootstrap = new Bootstrap().group(group).channel(NioSocketChannel.class)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, timeout.toMillis()))
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        SslHandler tls = links.handlerFor(ch, broker);
                        if (tls != null) {
                            ch.pipeline().addLast(tls);
                        }
                        ch.pipeline().addLast(new MqttDecoder(1 << 20), MqttEncoder.INSTANCE);
                        if (keepAliveSeconds > 0) {
                            // PINGREQ at half the keep-alive, so a long run's idle subscriber is not cut off.
                            ch.pipeline().addLast(new IdleStateHandler(0, Math.max(1, keepAliveSeconds / 2), 0));
                        }
                        ch.pipeline().addLast(new Inbound(inbound, handler));
                    }
                });
        ChannelFuture connect = bootstrap.connect(broker.host(), broker.port());
        if (!connect.await(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS)) {
            connect.cancel(true);
            throw new LinkException("TCP connect to " + broker + " timed out");
        }
        if (!connect.isSuccess()) {
            throw new LinkException("TCP connect to " + broker + " failed: " + connect.cause().getMessage());
        }
        SslHandler tls = connect.channel().pipeline().get(SslHandler.class);
        if (tls != null) {
            var handshake = tls.handshakeFuture();
            if (!handshake.await(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS) || !handshake.isSuccess()) {
                connect.channel().close();
                throw new LinkException("TLS handshake with " + broker + " failed: "
                        + (handshake.cause() == null ? "timed out" : MqttLinks.describe(handshake.cause())));
            }
        }
        return new MqttLink(connect.channel(), inbound);
    }

    /** Sends CONNECT and waits for CONNACK (or the end of the connection, or the timeout: then null). */
    public Packet connect(ConnectSpec spec, Duration timeout) throws InterruptedException {
        MqttProperties properties = new MqttProperties();
        if (spec.version() == MqttVersion.MQTT_5 && spec.sessionExpirySeconds() > 0) {
            properties.add(new MqttProperties.IntegerProperty(
                    MqttProperties.MqttPropertyType.SESSION_EXPIRY_INTERVAL.value(),
                    (int) Math.min(0xFFFFFFFFL, spec.sessionExpirySeconds())));
        }
        var builder = MqttMessageBuilders.connect().clientId(spec.clientId()).protocolVersion(spec.version())
                .cleanSession(spec.cleanStart()).keepAlive(spec.keepAliveSeconds()).properties(properties);
        if (spec.username() != null) {
            builder.hasUser(true).username(spec.username());
        }
        if (spec.password() != null) {
            builder.hasPassword(true).password(spec.password());
        }
        send(builder.build());
        return await(p -> p.type() == Packet.Type.CONNACK, timeout);
    }

    public void publish(String topic, int qos, int packetId, String payload) {
        send(MqttMessageBuilders.publish().topicName(topic).qos(MqttQoS.valueOf(qos)).messageId(packetId)
                .retained(false).payload(Unpooled.copiedBuffer(payload, StandardCharsets.UTF_8)).build());
    }

    public void subscribe(int packetId, MqttQoS qos, String... filters) {
        var builder = MqttMessageBuilders.subscribe().messageId(packetId);
        for (String filter : filters) {
            builder.addSubscription(qos, filter);
        }
        send(builder.build());
    }

    /** PUBACK/PUBREC/PUBREL/PUBCOMP. */
    public void reply(Packet acknowledgement) {
        send(Packets.reply(acknowledgement));
    }

    private void send(MqttMessage message) {
        channel.writeAndFlush(message);
    }

    /**
     * The next packet that matches, or the CLOSED/DISCONNECT packet that ends the connection, or null after the
     * timeout. Packets that do not match are skipped (they were already seen by the handler).
     */
    public Packet await(Predicate<Packet> wanted, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            Packet packet = left <= 0 ? inbound.poll() : inbound.poll(left, TimeUnit.NANOSECONDS);
            if (packet == null) {
                return null;
            }
            if (wanted.test(packet) || packet.endsConnection()) {
                return packet;
            }
        }
    }

    /** Like {@link #await} but hands every packet, wanted or not, to {@code seen} (the publisher's transcript). */
    public Packet await(Predicate<Packet> wanted, Duration timeout, java.util.function.Consumer<Packet> seen)
            throws InterruptedException {
        return await(packet -> {
            seen.accept(packet);
            return wanted.test(packet);
        }, timeout);
    }

    public boolean isOpen() {
        return channel.isActive();
    }

    /** Closes the TCP connection without DISCONNECT: to the broker this is a lost connection. */
    public void drop() throws InterruptedException {
        channel.close().await(5, TimeUnit.SECONDS);
    }

    /** DISCONNECT (reason 0x00: keep the session for its expiry interval), then close. */
    public void disconnect() throws InterruptedException {
        if (channel.isActive()) {
            channel.writeAndFlush(new MqttMessage(new MqttFixedHeader(MqttMessageType.DISCONNECT, false,
                    MqttQoS.AT_MOST_ONCE, false, 0))).await(2, TimeUnit.SECONDS);
        }
        drop();
    }

    @Override
    public void close() throws InterruptedException {
        drop();
    }

    /** Opening or using the connection failed. */
    public static final class LinkException extends RuntimeException {
        public LinkException(String message) {
            super(message);
        }
    }

    private static final class Inbound extends SimpleChannelInboundHandler<MqttMessage> {
        private final BlockingQueue<Packet> inbound;
        private final Function<Packet, Optional<Packet>> handler;

        Inbound(BlockingQueue<Packet> inbound, Function<Packet, Optional<Packet>> handler) {
            this.inbound = inbound;
            this.handler = handler;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, MqttMessage message) {
            Packet packet = Packets.of(message);
            if (handler != null) {
                handler.apply(packet).ifPresent(reply -> ctx.writeAndFlush(Packets.reply(reply)));
            }
            inbound.add(packet);
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
            if (event instanceof IdleStateEvent idle && idle.state() == IdleState.WRITER_IDLE) {
                ctx.writeAndFlush(new MqttMessage(new MqttFixedHeader(MqttMessageType.PINGREQ, false,
                        MqttQoS.AT_MOST_ONCE, false, 0)));
            }
            super.userEventTriggered(ctx, event);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            Packet closed = Packet.closed();
            if (handler != null) {
                handler.apply(closed);
            }
            inbound.add(closed);
            super.channelInactive(ctx);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            // A reset or a decode error: the connection is over; channelInactive reports it.
            ctx.close();
        }
    }
}
