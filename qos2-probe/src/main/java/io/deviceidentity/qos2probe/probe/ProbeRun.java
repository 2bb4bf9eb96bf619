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
import io.deviceidentity.qos2probe.mqtt.MqttLinks;
import io.deviceidentity.qos2probe.registration.DeviceRegistrar;
import io.deviceidentity.qos2probe.report.ProbeSummary;
import io.deviceidentity.qos2probe.verdict.MessageResult;
import io.deviceidentity.qos2probe.verdict.ReasonCodes;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.handler.codec.mqtt.MqttVersion;

/** The whole run: devices, subscriber, the messages, the verdicts, the auth checks, the summary. */
public final class ProbeRun {

    static final int KEEP_ALIVE_SECONDS = 30;
    /** Packet ids of the ACL checks' publishes (their payloads name them). */
    static final int ACL_CHECK_PACKET_ID = 60000;

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
        List<String> registered = new ArrayList<>();
        int n = settings.messages();
        List<byte[]> publisherPasswords = new ArrayList<>();
        byte[] subscriberPassword = settings.password();
        DeviceRegistrar registrar = null;
        NioEventLoopGroup group = new NioEventLoopGroup(2);
        MqttLinks links = settings.caFile() == null ? MqttLinks.plain(group) : MqttLinks.tls(group, settings.caFile());
        try {
            if (settings.registrationUrl() != null) {
                registrar = new DeviceRegistrar(settings.registrationUrl(), settings.registrationToken(),
                        settings.timeout(), settings.registrationCaFile());
                subscriberPassword = randomPassword();
                // Listed before the PUT: a PUT that timed out may still have created the device; revoking a device
                // that does not exist is a 404, which is fine.
                registered.add(settings.subscriberId());
                registrar.register(settings.subscriberId(), new String(subscriberPassword, StandardCharsets.UTF_8),
                        List.of(DeviceRegistrar.allow("subscribe", settings.subscriptionFilter())));
                for (int i = 0; i < n; i++) {
                    byte[] password = randomPassword();
                    registered.add(settings.publisherId(i));
                    // The service's default ACL (publish devices/${clientid}/#): the ACL check tests it.
                    registrar.register(settings.publisherId(i), new String(password, StandardCharsets.UTF_8),
                            List.of());
                    publisherPasswords.add(password);
                }
                log.println("registered " + settings.subscriberId() + " and " + n + " publishers");
            } else {
                for (int i = 0; i < n; i++) {
                    publisherPasswords.add(settings.password());
                }
            }
            long expiry = settings.sessionExpiry().toSeconds();
            ConnectSpec subscriberSpec = new ConnectSpec(settings.subscriberId(), settings.subscriberId(),
                    subscriberPassword, MqttVersion.MQTT_5, false, expiry, KEEP_ALIVE_SECONDS);
            List<MessageResult> results = new ArrayList<>();
            List<AuthCheck> checks = new ArrayList<>();
            int retransmissions;
            try (Subscriber subscriber = new Subscriber(links, settings.subscriberNode(), subscriberSpec,
                    List.of(settings.subscriptionFilter()), settings.timeout())) {
                subscriber.start();
                List<Publisher.Flow> flows = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    ConnectSpec publisherSpec = publisherSpec(i, publisherPasswords.get(i), expiry);
                    Publisher publisher = new Publisher(links, settings.nodeA(), settings.nodeB(), publisherSpec,
                            settings.topic(i), settings.timeout(), settings.reconnectTimeout());
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
                    // Publisher 0 has used 3 of its attempts; the checks add 3 more, within the per-device limit.
                    checks.addAll(new AuthChecks(links, settings.timeout()).run(settings.nodeB(),
                            publisherSpec(0, publisherPasswords.get(0), expiry), settings.deniedTopic(),
                            ACL_CHECK_PACKET_ID));
                    Thread.sleep(settings.duplicateWindow().toMillis());
                    int delivered = subscriber.deliveries(AuthChecks.payload(ACL_CHECK_PACKET_ID))
                            + subscriber.deliveries(AuthChecks.payload(ACL_CHECK_PACKET_ID + 1));
                    // The subscriber's filter covers the denied topic: a refused publish must reach nobody.
                    checks.add(new AuthCheck("denied_publish_not_delivered", "no delivery of the refused publishes",
                            delivered + " delivered", delivered == 0));
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
            run.put("publisher_client_ids",
                    settings.publisherId(0) + (n > 1 ? " .. " + settings.publisherId(n - 1) : ""));
            run.put("subscriber_client_id", settings.subscriberId());
            run.put("registered", registrar != null);
            run.put("duration_ms", (System.nanoTime() - started) / 1_000_000);
            return new ProbeSummary(run, results, checks, retransmissions);
        } finally {
            group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).await(5000);
            if (registrar != null && settings.revoke()) {
                for (String id : registered) {
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

    private ConnectSpec publisherSpec(int message, byte[] password, long expiry) {
        String id = settings.publisherId(message);
        return new ConnectSpec(id, id, password, MqttVersion.MQTT_5, false, expiry, KEEP_ALIVE_SECONDS);
    }

    /** Per-run device passwords: nothing to keep secret in the Job's YAML, nothing reused across runs. */
    private static byte[] randomPassword() {
        // 43 characters: above any minimum length a deployment is likely to set, below bcrypt's 72 bytes.
        byte[] bytes = new byte[32];
        new SecureRandom().nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes).getBytes(StandardCharsets.US_ASCII);
    }
}
