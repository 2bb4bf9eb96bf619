package io.deviceidentity.loadtest.emqx;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A Kubernetes Service in front of several auth-service replicas, as EMQX's pool sees it: every NEW connection goes
 * to one ready endpoint picked at random (kube-proxy's iptables mode: one {@code statistic --mode random} rule per
 * endpoint), and a connection stays with its endpoint until it is closed. ehttpc (emqx/ehttpc@0.7.3,
 * src/ehttpc.erl) opens a worker's connection once ({@code open/1} on the first request or health check) and keeps
 * it: a replica that becomes ready later gets only the connections opened after that (after a transport error,
 * {@code handle_gun_down}/{@code 'EXIT'}, or a jammed connection, {@code check_gun_jammed}). {@link OnJoin#REOPEN}
 * models an event that reopens every connection when a replica joins (EMQX's pool re-created, or the service closing
 * its kept-alive connections); {@link OnJoin#KEEP} is ehttpc's own behaviour. Runs on the event loop only.
 */
public final class ServiceEndpoints {

    /** What EMQX's open connections do when a replica becomes ready. */
    public enum OnJoin { KEEP, REOPEN }

    /** One replica: its name in reports, where it listens, and whether it is a ready endpoint of the Service. */
    public static final class Endpoint {
        private final String name;
        private final URI url;
        private boolean ready;
        private int connections;

        Endpoint(String name, URI url, boolean ready) {
            this.name = name;
            this.url = url;
            this.ready = ready;
        }

        public String name() {
            return name;
        }

        public URI url() {
            return url;
        }

        public boolean ready() {
            return ready;
        }

        /** EMQX connections open to this replica now. */
        public int connections() {
            return connections;
        }
    }

    private final List<Endpoint> endpoints = new ArrayList<>();
    private final List<BalancedTransport> transports = new ArrayList<>();
    private final Random random;
    private final OnJoin onJoin;

    /** {@code ready} replicas are endpoints from the start; {@code joining} ones only once {@link #ready} is called. */
    public ServiceEndpoints(List<URI> ready, List<URI> joining, OnJoin onJoin, long seed) {
        if (ready.isEmpty()) {
            throw new IllegalArgumentException("a Service needs at least one ready replica at the start");
        }
        int n = 1;
        for (URI url : ready) {
            endpoints.add(new Endpoint("replica-" + n++, url, true));
        }
        for (URI url : joining) {
            endpoints.add(new Endpoint("replica-" + n++, url, false));
        }
        this.onJoin = onJoin;
        this.random = new Random(seed);
    }

    public List<Endpoint> endpoints() {
        return List.copyOf(endpoints);
    }

    /** The replicas that are not endpoints yet (started cold, waiting for readiness). */
    public List<Endpoint> joining() {
        return endpoints.stream().filter(e -> !e.ready).toList();
    }

    /** The endpoint a new connection goes to: a ready one, at random. */
    Endpoint connect() {
        List<Endpoint> ready = endpoints.stream().filter(e -> e.ready).toList();
        Endpoint chosen = ready.get(random.nextInt(ready.size()));
        chosen.connections++;
        return chosen;
    }

    void disconnected(Endpoint endpoint) {
        endpoint.connections--;
    }

    void register(BalancedTransport transport) {
        transports.add(transport);
    }

    /** The replica passed its readiness check: it is an endpoint now; with REOPEN every connection is reopened. */
    public void ready(Endpoint endpoint) {
        if (endpoint.ready) {
            return;
        }
        endpoint.ready = true;
        if (onJoin == OnJoin.REOPEN) {
            transports.forEach(BalancedTransport::reopen);
        }
    }
}
