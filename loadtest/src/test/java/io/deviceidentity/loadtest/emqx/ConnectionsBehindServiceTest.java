package io.deviceidentity.loadtest.emqx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.deviceidentity.loadtest.report.ReplicaSeconds;
import io.vertx.core.buffer.Buffer;

/**
 * EMQX's pool in front of a Kubernetes Service of several replicas, on a virtual clock: each worker's connection is
 * opened once to a replica the Service picks and kept (ehttpc), so a replica that becomes ready later gets nothing
 * until a connection is opened anew (a transport error, or every connection reopened when it joins); per-replica
 * figures say which replica answered what, in time or late.
 */
class ConnectionsBehindServiceTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final Answer ALLOW = new Answer(200, "allow");
    private static final Answer OVERLOAD = new Answer(503, "overload");
    private static final URI A = URI.create("http://127.0.0.1:1001/mqtt/authn");
    private static final URI B = URI.create("http://127.0.0.1:1002/mqtt/authn");
    private static final URI C = URI.create("http://127.0.0.1:1003/mqtt/authn");

    private final VirtualClock clock = new VirtualClock();
    private final RecordingListener listener = new RecordingListener();
    /** Every connection opened, with the replica it went to. */
    private final List<Map.Entry<String, ScriptedTransport>> opened = new ArrayList<>();

    private EmqxAuthnClient client(ServiceEndpoints service, int poolSize, CallListener extra) {
        return EmqxAuthnClient.overService(service, poolSize, 1, TIMEOUT, extra == listener ? listener : CallListeners.both(listener, extra), clock,
                endpoint -> {
                    ScriptedTransport t = new ScriptedTransport();
                    opened.add(Map.entry(endpoint.name(), t));
                    return t;
                });
    }

    private static void call(EmqxAuthnClient client, int n) {
        for (int i = 0; i < n; i++) {
            client.authenticate(Buffer.buffer("{}"), answer -> { });
        }
    }

    /** Answers everything sent so far on every open connection, until nothing is left in flight. */
    private void answerAll(Answer answer) {
        boolean any = true;
        while (any) {
            any = false;
            for (var entry : List.copyOf(opened)) {
                if (entry.getValue().awaitingAnswer() > 0) {
                    entry.getValue().answer(answer);
                    any = true;
                }
            }
        }
    }

    private Map<String, Integer> sentPerReplica() {
        Map<String, Integer> sent = new HashMap<>();
        opened.forEach(e -> sent.merge(e.getKey(), e.getValue().requestsSent, Integer::sum));
        return sent;
    }

    @Test
    void connectionsAreOpenedOnceOverTheReadyReplicasAndKept() {
        ServiceEndpoints service = new ServiceEndpoints(List.of(A, B), List.of(), ServiceEndpoints.OnJoin.KEEP, 1);
        EmqxAuthnClient client = client(service, 8, listener);
        for (int round = 0; round < 20; round++) {
            call(client, 8);
            answerAll(ALLOW);
        }
        assertEquals(8, opened.size(), "one connection per worker, kept across 160 requests");
        assertEquals(160, sentPerReplica().values().stream().mapToInt(Integer::intValue).sum());
        assertTrue(sentPerReplica().keySet().containsAll(List.of("replica-1", "replica-2")), sentPerReplica().toString());
        assertEquals(8, service.endpoints().stream().mapToInt(ServiceEndpoints.Endpoint::connections).sum());
    }

    @Test
    void aReplicaThatJoinsGetsNothingWhileTheConnectionsAreKept() {
        ServiceEndpoints service = new ServiceEndpoints(List.of(A, B), List.of(C), ServiceEndpoints.OnJoin.KEEP, 1);
        EmqxAuthnClient client = client(service, 8, listener);
        call(client, 8);
        answerAll(ALLOW);
        service.ready(service.joining().get(0));
        for (int round = 0; round < 20; round++) {
            call(client, 8);
            answerAll(OVERLOAD);
        }
        assertEquals(null, sentPerReplica().get("replica-3"), "ehttpc keeps its connections: " + sentPerReplica());
    }

    @Test
    void reopeningWhenAReplicaJoinsSpreadsTheConnectionsOverAllThree() {
        ServiceEndpoints service = new ServiceEndpoints(List.of(A, B), List.of(C), ServiceEndpoints.OnJoin.REOPEN, 1);
        EmqxAuthnClient client = client(service, 24, listener);
        assertEquals(24, opened.size(), "every worker's connection is open from the start");
        for (int i = 0; i < 24; i++) {
            call(client, 1);
        }
        int busy = (int) opened.stream().filter(e -> e.getValue().awaitingAnswer() > 0).count();
        service.ready(service.joining().get(0));
        assertEquals(48 - busy, opened.size(), "idle connections reopen at once, busy ones not under their request");
        answerAll(ALLOW);
        assertEquals(24, listener.answers.size(), "every answer in flight was delivered");
        assertEquals(48, opened.size(), "each worker reopened exactly once");
        assertTrue(opened.subList(24, 48).stream().anyMatch(e -> e.getKey().equals("replica-3")), opened.toString());
        assertEquals(24, service.endpoints().stream().mapToInt(ServiceEndpoints.Endpoint::connections).sum());
    }

    @Test
    void aTransportErrorOpensANewConnectionThroughTheService() {
        ServiceEndpoints service = new ServiceEndpoints(List.of(A, B), List.of(), ServiceEndpoints.OnJoin.KEEP, 1);
        EmqxAuthnClient client = client(service, 1, listener);
        call(client, 1);
        opened.get(0).getValue().fail();
        assertEquals(2, opened.size(), "ehttpc's retry goes out on a new connection");
        assertEquals(1, service.endpoints().stream().mapToInt(ServiceEndpoints.Endpoint::connections).sum());
    }

    @Test
    void aJammedConnectionIsDroppedAndOpenedAnewThroughTheService() {
        ServiceEndpoints service = new ServiceEndpoints(List.of(A, B), List.of(), ServiceEndpoints.OnJoin.KEEP, 1);
        EmqxAuthnClient client = client(service, 1, listener);
        call(client, 1); // never answered
        clock.advance(TIMEOUT.plusSeconds(10).plusMillis(1));
        call(client, 1);

        assertEquals(2, opened.size(), "ehttpc kills the zombie connection and opens a new one");
        assertEquals(1, opened.get(1).getValue().requestsSent, "the new call went out on the new connection");
        assertEquals(1, service.endpoints().stream().mapToInt(ServiceEndpoints.Endpoint::connections).sum());
        assertEquals(1, listener.jammedConnectionsDropped);
    }

    @Test
    void perReplicaSecondsCountAllowsInTimeRefusalsAndLateAnswersWhereTheyCameFrom() {
        ServiceEndpoints service = new ServiceEndpoints(List.of(A), List.of(C), ServiceEndpoints.OnJoin.REOPEN, 1);
        ReplicaSeconds replicas = new ReplicaSeconds(service);
        EmqxAuthnClient client = client(service, 1, replicas);
        call(client, 3);
        opened.get(0).getValue().answer(ALLOW);
        opened.get(0).getValue().answer(OVERLOAD);
        clock.advance(TIMEOUT.plusSeconds(1));
        opened.get(0).getValue().answer(ALLOW);
        replicas.closeSecond(1);

        service.ready(service.joining().get(0));
        call(client, 1);
        String reopenedTo = opened.get(1).getKey();
        opened.get(1).getValue().answer(ALLOW);
        replicas.closeSecond(2);

        List<ReplicaSeconds.Row> rows = replicas.rows();
        assertEquals(new ReplicaSeconds.Row(1, "replica-1", true, 1, 3, 1, 0, 1, 1), rows.get(0));
        assertEquals(new ReplicaSeconds.Row(1, "replica-2", false, 0, 0, 0, 0, 0, 0), rows.get(1));
        ReplicaSeconds.Row second2 = rows.subList(2, 4).stream().filter(r -> r.replica().equals(reopenedTo))
                .findFirst().orElseThrow();
        assertEquals(new ReplicaSeconds.Row(2, reopenedTo, true, 1, 1, 1, 0, 0, 0), second2);
    }
}
