package io.deviceidentity.qos2probe.probe;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.deviceidentity.qos2probe.auth.AuthCheck;
import io.deviceidentity.qos2probe.auth.AuthChecks;
import io.deviceidentity.qos2probe.mqtt.ConnectSpec;
import io.deviceidentity.qos2probe.registration.DeviceRegistrar;
import io.deviceidentity.qos2probe.report.ProbeSummary;
import io.deviceidentity.qos2probe.verdict.MessageResult;
import io.deviceidentity.qos2probe.verdict.ReasonCodes;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.handler.codec.mqtt.MqttVersion;

/** The whole run: devices, subscriber, the messages, the verdicts, the auth checks, the summary. */
public final class ProbeRun {

    static final int KEEP_ALIVE_SECONDS = 30;

    private final ProbeSettings settings;
    private final ReconnectHook hook;
    private final PrintStream log;

    public ProbeRun(ProbeSettings settings, ReconnectHook hook, PrintStream log) {
        this.settings = settings;
        this.hook = hook;
        this.log = log;
    }

    public ProbeSummary execute() throws Exception {
        long started = System.nanoTime();
        byte[] publisherPassword = settings.password();
        byte[] subscriberPassword = settings.password();
        DeviceRegistrar registrar = null;
        if (settings.registrationUrl() != null) {
            registrar = new DeviceRegistrar(settings.registrationUrl(), settings.registrationToken(),
                    settings.timeout());
            publisherPassword = randomPassword();
            subscriberPassword = randomPassword();
            // The publisher keeps the service's default ACL (publish devices/${clientid}/#): the ACL check tests it.
            registrar.register(settings.publisherId(), new String(publisherPassword, StandardCharsets.UTF_8),
                    List.of());
            registrar.register(settings.subscriberId(), new String(subscriberPassword, StandardCharsets.UTF_8),
                    List.of(DeviceRegistrar.allow("subscribe", "devices/" + settings.publisherId() + "/#"),
                            DeviceRegistrar.allow("subscribe", "devices/" + settings.otherId() + "/#")));
            log.println("registered " + settings.publisherId() + " and " + settings.subscriberId());
        }
        NioEventLoopGroup group = new NioEventLoopGroup(2);
        try {
            long expiry = settings.sessionExpiry().toSeconds();
            ConnectSpec publisherSpec = new ConnectSpec(settings.publisherId(), settings.publisherId(),
                    publisherPassword, MqttVersion.MQTT_5, false, expiry, KEEP_ALIVE_SECONDS);
            ConnectSpec subscriberSpec = new ConnectSpec(settings.subscriberId(), settings.subscriberId(),
                    subscriberPassword, MqttVersion.MQTT_5, false, expiry, KEEP_ALIVE_SECONDS);
            List<String> filters = new ArrayList<>(List.of(settings.topic()));
            if (settings.authChecks()) {
                // Watches the topic the ACL checks publish to: a refused publish must not reach anyone.
                filters.add(settings.deniedTopic());
            }
            List<MessageResult> results = new ArrayList<>();
            List<AuthCheck> checks = new ArrayList<>();
            int retransmissions;
            try (Subscriber subscriber = new Subscriber(group, settings.subscriberNode(), subscriberSpec, filters,
                    settings.timeout())) {
                subscriber.start();
                Publisher publisher = new Publisher(group, settings.nodeA(), settings.nodeB(), publisherSpec,
                        settings.topic(), settings.timeout(), settings.reconnectTimeout());
                List<Publisher.Flow> flows = new ArrayList<>();
                for (int i = 0; i < settings.messages(); i++) {
                    String payload = settings.runId() + "/" + i;
                    Publisher.Flow flow = publisher.send(i, payload, hook, subscriber);
                    flows.add(flow);
                    var t = flow.transcript();
                    log.printf("message %d: PUBCOMP %s session-present %s%s%s%n", i,
                            t.pubcompReason() == null ? "-" : ReasonCodes.hex(t.pubcompReason()), t.sessionPresent(),
                            t.republished() ? " republished" : "", t.error() == null ? "" : " FAILED: " + t.error());
                }
                awaitDeliveries(subscriber, flows);
                if (settings.authChecks()) {
                    checks.addAll(new AuthChecks(group, settings.timeout())
                            .run(settings.nodeB(), publisherSpec, settings.deniedTopic(), 60000));
                    Thread.sleep(settings.duplicateWindow().toMillis());
                    checks.add(deniedNotDelivered(subscriber));
                }
                for (Publisher.Flow flow : flows) {
                    results.add(new MessageResult(flow.transcript(),
                            subscriber.deliveries(flow.transcript().payload()), flow.takeoverMs()));
                }
                retransmissions = subscriber.retransmissions();
            }
            Map<String, Object> run = new LinkedHashMap<>();
            run.put("run_id", settings.runId());
            run.put("broker_a", settings.nodeA().toString());
            run.put("broker_b", settings.nodeB().toString());
            run.put("subscriber_broker", settings.subscriberNode().toString());
            run.put("publisher_client_id", settings.publisherId());
            run.put("subscriber_client_id", settings.subscriberId());
            run.put("registered", registrar != null);
            run.put("duration_ms", (System.nanoTime() - started) / 1_000_000);
            return new ProbeSummary(run, results, checks, retransmissions);
        } finally {
            group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).await(5000);
            if (registrar != null && settings.revoke()) {
                for (String id : List.of(settings.publisherId(), settings.subscriberId())) {
                    try {
                        registrar.revoke(id);
                    } catch (Exception e) {
                        log.println("could not revoke " + id + ": " + e.getMessage());
                    }
                }
            }
        }
    }

    /** Until every message arrived or the delivery timeout, then the duplicate window for late second copies. */
    private void awaitDeliveries(Subscriber subscriber, List<Publisher.Flow> flows) throws InterruptedException {
        long deadline = System.nanoTime() + settings.deliveryTimeout().toNanos();
        while (System.nanoTime() < deadline
                && flows.stream().anyMatch(f -> subscriber.deliveries(f.transcript().payload()) == 0)) {
            Thread.sleep(50);
        }
        Thread.sleep(settings.duplicateWindow().toMillis());
    }

    private AuthCheck deniedNotDelivered(Subscriber subscriber) {
        Integer watch = subscriber.subackCodes().get(settings.deniedTopic());
        String expected = "no delivery of the refused publishes";
        if (watch == null || ReasonCodes.isFailure(watch)) {
            return new AuthCheck("denied_publish_not_delivered", expected, "not observable: the subscriber's watch "
                    + "subscription was refused (SUBACK " + (watch == null ? "none" : ReasonCodes.hex(watch)) + ")",
                    true);
        }
        int delivered = subscriber.deliveries("acl-check-60000") + subscriber.deliveries("acl-check-60001");
        return new AuthCheck("denied_publish_not_delivered", expected, delivered + " delivered", delivered == 0);
    }

    /** Per-run device passwords: nothing to keep secret in the Job's YAML, nothing reused across runs. */
    private static byte[] randomPassword() {
        byte[] bytes = new byte[18];
        new SecureRandom().nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes).getBytes(StandardCharsets.US_ASCII);
    }
}
