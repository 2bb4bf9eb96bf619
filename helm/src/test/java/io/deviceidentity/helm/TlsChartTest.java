package io.deviceidentity.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.openshift.api.model.monitoring.v1.ServiceMonitor;

/**
 * TLS on every hop that carries a credential: the defaults render it everywhere, with the environment
 * names of the services' TLS contract; each value that would leave a hop in clear is refused, naming the opt-out
 * tls.plaintextAllowedBecause, and renders with it; certificates come from cert-manager or from existing Secrets.
 */
class TlsChartTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Chart.Rendered DEFAULTS = Chart.render();
    private static final String OPT_OUT = "tls.plaintextAllowedBecause";
    private static final String REASON = "service mesh in strict mTLS";
    private static final String AUTH_HOST = Chart.name("auth-service") + "." + Chart.NAMESPACE + ".svc";

    // ----- The services ------------------------------------------------------------------------------------------

    @Test
    void bothServicesGetTheTlsContractsEnvironmentByDefault() {
        for (String service : List.of("auth-service", "registration-service")) {
            Map<String, String> env = ServicesTest.env(DEFAULTS, service);
            assertEquals("true", env.get("IDENTITY_TLS_ENABLED"), service);
            assertEquals("/etc/device-identity/tls/tls.crt", env.get("IDENTITY_TLS_CERT_FILE"), service);
            assertEquals("/etc/device-identity/tls/tls.key", env.get("IDENTITY_TLS_KEY_FILE"), service);
            assertEquals("1m", env.get("IDENTITY_TLS_RELOAD_PERIOD"), service);
            assertEquals("verify-full", env.get("IDENTITY_DB_SSLMODE"), service);
            assertEquals("/etc/device-identity/db-ca/ca.crt", env.get("IDENTITY_DB_SSLROOTCERT"), service);
            assertEquals("9000", env.get("IDENTITY_MANAGEMENT_PORT"), service);
        }
        Map<String, String> auth = ServicesTest.env(DEFAULTS, "auth-service");
        assertEquals("required", auth.get("IDENTITY_TLS_CLIENT_AUTH"), "EMQX's client certificate is on by default");
        assertEquals("/etc/device-identity/client-ca/ca.crt", auth.get("IDENTITY_TLS_CLIENT_CA_FILE"));
        Map<String, String> registration = ServicesTest.env(DEFAULTS, "registration-service");
        assertFalse(registration.containsKey("IDENTITY_TLS_CLIENT_AUTH"), "auth-service only");
    }

    @Test
    void theCertificateFilesAreMountedWhereTheEnvironmentSaysFromTheComponentsSecrets() {
        PodSpec auth = pod(DEFAULTS, "auth-service");
        Container c = auth.getContainers().get(0);
        assertEquals(Map.of("/etc/device-identity/tls", "tls", "/etc/device-identity/db-ca", "db-ca",
                "/etc/device-identity/client-ca", "client-ca"), readOnlyMounts(c));
        assertEquals(Chart.name("auth-service-tls"), volume(auth, "tls").getSecret().getSecretName());
        assertEquals(Chart.name("pgbouncer-tls"), volume(auth, "db-ca").getSecret().getSecretName(),
                "the services verify PgBouncer against the CA in its Secret");
        assertEquals(Chart.name("emqx-client-tls"), volume(auth, "client-ca").getSecret().getSecretName());
        assertEquals(288, volume(auth, "tls").getSecret().getDefaultMode(), "the key is readable by the pod's group only");
        PodSpec registration = pod(DEFAULTS, "registration-service");
        assertEquals(Chart.name("registration-service-tls"), volume(registration, "tls").getSecret().getSecretName());
        assertFalse(readOnlyMounts(registration.getContainers().get(0)).containsKey("/etc/device-identity/client-ca"));
    }

    @Test
    void probesAndMetricsUseTheManagementPortNeverTheHttpsPort() {
        for (String service : List.of("auth-service", "registration-service")) {
            Container c = pod(DEFAULTS, service).getContainers().get(0);
            Map<String, Integer> ports = c.getPorts().stream()
                    .collect(Collectors.toMap(p -> p.getName(), p -> p.getContainerPort()));
            assertEquals(Set.of("https", "management"), ports.keySet(), service);
            assertEquals(9000, ports.get("management"));
            for (var probe : List.of(c.getStartupProbe(), c.getLivenessProbe(), c.getReadinessProbe())) {
                assertEquals("management", probe.getHttpGet().getPort().getStrVal(), service);
                assertNull(probe.getHttpGet().getScheme(), "the management interface is plain HTTP");
            }
            Service svc = DEFAULTS.get(Service.class, Chart.name(service));
            assertEquals(List.of("https", "management"), svc.getSpec().getPorts().stream().map(ServicePort::getName).toList());
        }
        Chart.Rendered monitored = Chart.render(Chart.set("metrics.serviceMonitor.enabled", true));
        for (String service : List.of("auth-service", "registration-service")) {
            assertEquals("management", monitored.get(ServiceMonitor.class, Chart.name(service)).getSpec().getEndpoints()
                    .get(0).getPort());
        }
    }

    // ----- PgBouncer and PostgreSQL ------------------------------------------------------------------------------

    @Test
    void pgbouncerRequiresTlsOfClientsAndVerifiesPostgresqlFully() {
        Map<String, String> ini = PgBouncerTest.ini(DEFAULTS).section("pgbouncer");
        assertEquals("require", ini.get("client_tls_sslmode"));
        assertEquals("/etc/pgbouncer-tls/tls.key", ini.get("client_tls_key_file"));
        assertEquals("/etc/pgbouncer-tls/tls.crt", ini.get("client_tls_cert_file"));
        assertFalse(ini.containsKey("client_tls_ca_file"), "no client certificates are asked for with require");
        assertEquals("/etc/pgbouncer-tls/ca.crt", PgBouncerTest.ini(Chart.render(Chart.set(
                "tls.database.pgbouncerClientSslMode", "verify-full"))).section("pgbouncer").get("client_tls_ca_file"));
        assertEquals("verify-full", ini.get("server_tls_sslmode"));
        assertEquals("/etc/pgbouncer-db-ca/ca.crt", ini.get("server_tls_ca_file"));
        Set<String> known = new TreeSet<>(PgBouncerTest.KEYS_KNOWN_TO_1_18);
        // PgBouncer 1.18's src/main.c (tag pgbouncer_1_18_0) declares these.
        known.addAll(List.of("client_tls_sslmode", "client_tls_key_file", "client_tls_cert_file", "client_tls_ca_file",
                "server_tls_sslmode", "server_tls_ca_file"));
        assertTrue(known.containsAll(ini.keySet()), () -> "unknown to 1.18: " + ini.keySet());
        PodSpec pod = pod(DEFAULTS, "pgbouncer");
        assertEquals(Chart.name("pgbouncer-tls"), volume(pod, "tls").getSecret().getSecretName());
        assertEquals(Chart.name("postgresql-tls"), volume(pod, "db-ca").getSecret().getSecretName(),
                "PgBouncer verifies PostgreSQL against the CA in PostgreSQL's Secret");
    }

    @Test
    void theBundledPostgresqlServesTlsAndRejectsConnectionsWithoutIt() {
        StatefulSet postgres = DEFAULTS.get(StatefulSet.class, Chart.name("postgresql"));
        List<String> args = postgres.getSpec().getTemplate().getSpec().getContainers().get(0).getArgs();
        assertTrue(args.contains("ssl=on"), args::toString);
        assertTrue(args.contains("ssl_cert_file=/etc/postgresql-tls/tls.crt"), args::toString);
        assertTrue(args.contains("ssl_key_file=/etc/postgresql-tls/tls.key"), args::toString);
        String hba = DEFAULTS.get(ConfigMap.class, Chart.name("postgresql-hba")).getData().get("pg_hba.conf");
        List<List<String>> rules = hba.lines().map(l -> List.of(l.trim().split("\\s+"))).toList();
        assertTrue(rules.contains(List.of("hostnossl", "all", "all", "0.0.0.0/0", "reject")), hba);
        assertFalse(rules.stream().anyMatch(r -> r.get(0).equals("host") && !r.get(4).equals("reject")),
                "no network rule admits a connection without TLS: " + hba);
    }

    // ----- EMQX ----------------------------------------------------------------------------------------------------

    @Test
    void emqxCallsAuthServiceOverHttpsVerifyingItsPeerWithItsClientCertificate() throws Exception {
        Map<String, String> env = EmqxTest.env(DEFAULTS);
        List<Map<String, Object>> chain = JSON.readValue(env.get("EMQX_AUTHENTICATION"), new TypeReference<>() { });
        List<Map<String, Object>> sources = JSON.readValue(env.get("EMQX_AUTHORIZATION__SOURCES"), new TypeReference<>() { });
        Map<String, Object> expected = Map.of("enable", true, "verify", "verify_peer",
                "cacertfile", "/opt/emqx/auth-ca/ca.crt", "server_name_indication", AUTH_HOST,
                "certfile", "/opt/emqx/client-tls/tls.crt", "keyfile", "/opt/emqx/client-tls/tls.key");
        assertEquals("https://" + AUTH_HOST + ":8081/mqtt/authn", chain.get(0).get("url"));
        assertEquals(expected, chain.get(0).get("ssl"));
        assertEquals("https://" + AUTH_HOST + ":8081/mqtt/authz", sources.get(0).get("url"));
        assertEquals(expected, sources.get(0).get("ssl"));
        // The files are there: the CA of auth-service's certificate and EMQX's client certificate.
        PodSpec pod = DEFAULTS.get(StatefulSet.class, Chart.name("emqx")).getSpec().getTemplate().getSpec();
        Map<String, String> mounts = readOnlyMounts(pod.getContainers().get(0));
        assertEquals("auth-ca", mounts.get("/opt/emqx/auth-ca"));
        assertEquals("client-tls", mounts.get("/opt/emqx/client-tls"));
        assertEquals(Chart.name("auth-service-tls"), volume(pod, "auth-ca").getSecret().getSecretName());
        assertEquals(Chart.name("emqx-client-tls"), volume(pod, "client-tls").getSecret().getSecretName());
    }

    @Test
    void withoutTheClientCertificateEmqxStillVerifiesAuthServiceAndAuthServiceAsksForNone() throws Exception {
        Chart.Rendered rendered = Chart.render(Chart.set("emqx.clientCertificate", false));
        List<Map<String, Object>> chain = JSON.readValue(EmqxTest.env(rendered).get("EMQX_AUTHENTICATION"),
                new TypeReference<>() { });
        assertEquals(Map.of("enable", true, "verify", "verify_peer", "cacertfile", "/opt/emqx/auth-ca/ca.crt",
                "server_name_indication", AUTH_HOST), chain.get(0).get("ssl"));
        Map<String, String> env = ServicesTest.env(rendered, "auth-service");
        assertEquals("none", env.get("IDENTITY_TLS_CLIENT_AUTH"));
        assertFalse(env.containsKey("IDENTITY_TLS_CLIENT_CA_FILE"));
        rendered.assertAbsent(GenericKubernetesResource.class, Chart.name("emqx-client"));
    }

    @Test
    void devicesReachOnlyTheTlsListenersAndTheClusterRefusesTheInsecureRpcFallback() {
        Map<String, String> env = EmqxTest.env(DEFAULTS);
        assertEquals("false", env.get("EMQX_RPC__INSECURE_FALLBACK"));
        assertEquals("false", env.get("EMQX_LISTENERS__TCP__DEFAULT__ENABLE"));
        assertEquals("false", env.get("EMQX_LISTENERS__WS__DEFAULT__ENABLE"));
        assertEquals("/opt/emqx/tls/tls.crt", env.get("EMQX_LISTENERS__SSL__DEFAULT__SSL_OPTIONS__CERTFILE"));
        assertEquals("/opt/emqx/tls/tls.key", env.get("EMQX_LISTENERS__SSL__DEFAULT__SSL_OPTIONS__KEYFILE"));
        assertEquals("/opt/emqx/tls/tls.crt", env.get("EMQX_LISTENERS__WSS__DEFAULT__SSL_OPTIONS__CERTFILE"));
        assertEquals(List.of(8883, 8084), ports(DEFAULTS.get(Service.class, Chart.name("emqx"))));
        StatefulSet emqx = DEFAULTS.get(StatefulSet.class, Chart.name("emqx"));
        Set<Integer> containerPorts = emqx.getSpec().getTemplate().getSpec().getContainers().get(0).getPorts().stream()
                .map(p -> p.getContainerPort()).collect(Collectors.toSet());
        assertFalse(containerPorts.contains(1883) || containerPorts.contains(8083), containerPorts::toString);

        Chart.Rendered kept = Chart.render(Chart.set("emqx.listeners.plaintext", true));
        assertEquals(List.of(8883, 8084, 1883, 8083), ports(kept.get(Service.class, Chart.name("emqx"))));
        assertFalse(EmqxTest.env(kept).containsKey("EMQX_LISTENERS__TCP__DEFAULT__ENABLE"));
    }

    @Test
    void theDashboardHasItsOwnClusterIpServiceAndIsNotOnTheDevicesService() {
        Service dashboard = DEFAULTS.get(Service.class, Chart.name("emqx-dashboard"));
        assertEquals("ClusterIP", dashboard.getSpec().getType());
        assertEquals(List.of(18084), ports(dashboard));
        Chart.Rendered lb = Chart.render(Chart.set("emqx.service.type", "LoadBalancer"));
        assertFalse(ports(lb.get(Service.class, Chart.name("emqx"))).contains(18084));
        assertEquals("ClusterIP", lb.get(Service.class, Chart.name("emqx-dashboard")).getSpec().getType());
        assertEquals("https://" + Chart.name("emqx-dashboard") + "." + Chart.NAMESPACE + ".svc.cluster.local:18084",
                ServicesTest.env(DEFAULTS, "registration-service").get("IDENTITY_KICKS_EMQX_API_URL"));
        // Off: no Service of its own unless the kicks need it.
        Chart.render(Chart.set("emqx.dashboard.service.enabled", false, "registrationService.kicks.enabled", false))
                .assertAbsent(Service.class, Chart.name("emqx-dashboard"));
    }

    @Test
    void theDashboardAndRestApiAreServedOverHttpsOnlyWithEmqxsCertificate() {
        Map<String, String> env = EmqxTest.env(DEFAULTS);
        assertEquals("0", env.get("EMQX_DASHBOARD__LISTENERS__HTTP__BIND"), "bind 0: the plain listener is off");
        assertEquals("18084", env.get("EMQX_DASHBOARD__LISTENERS__HTTPS__BIND"));
        assertEquals("/opt/emqx/tls/tls.crt", env.get("EMQX_DASHBOARD__LISTENERS__HTTPS__SSL_OPTIONS__CERTFILE"));
        assertEquals("/opt/emqx/tls/tls.key", env.get("EMQX_DASHBOARD__LISTENERS__HTTPS__SSL_OPTIONS__KEYFILE"));
        StatefulSet emqx = DEFAULTS.get(StatefulSet.class, Chart.name("emqx"));
        var container = emqx.getSpec().getTemplate().getSpec().getContainers().get(0);
        assertTrue(container.getPorts().stream().anyMatch(p -> p.getName().equals("dashboard") && p.getContainerPort() == 18084));
        assertTrue(container.getPorts().stream().noneMatch(p -> p.getContainerPort() == 18083));
        for (var probe : List.of(container.getStartupProbe(), container.getReadinessProbe(), container.getLivenessProbe())) {
            assertEquals("HTTPS", probe.getHttpGet().getScheme());
            assertEquals("dashboard", probe.getHttpGet().getPort().getStrVal());
        }
        // Without TLS (opted out): plain 18083, as EMQX's default.
        Chart.Rendered plain = Chart.render(Chart.set("tls.enabled", false, "tls.plaintextAllowedBecause", "mesh"));
        assertFalse(EmqxTest.env(plain).containsKey("EMQX_DASHBOARD__LISTENERS__HTTPS__BIND"));
        assertEquals(List.of(18083), ports(plain.get(Service.class, Chart.name("emqx-dashboard"))));
        assertEquals("HTTP", plain.get(StatefulSet.class, Chart.name("emqx")).getSpec().getTemplate().getSpec()
                .getContainers().get(0).getReadinessProbe().getHttpGet().getScheme());
    }

    @Test
    void emqxsCertificateNamesTheDashboardServiceAndEveryNodeByItsHeadlessName() {
        List<String> names = dnsNames(Chart.render(Chart.set("emqx.replicas", 3)), "emqx");
        String dashboard = Chart.name("emqx-dashboard");
        assertTrue(names.containsAll(List.of(dashboard, dashboard + ".identity", dashboard + ".identity.svc",
                dashboard + ".identity.svc.cluster.local")), names::toString);
        for (int node = 0; node < 3; node++) {
            String pod = Chart.name("emqx") + "-" + node + "." + Chart.name("emqx-headless");
            assertTrue(names.containsAll(List.of(pod, pod + ".identity.svc", pod + ".identity.svc.cluster.local")),
                    pod + " in " + names);
        }
        assertFalse(names.contains(Chart.name("emqx") + "-3." + Chart.name("emqx-headless")), "no name of a node that is not");
    }

    @SuppressWarnings("unchecked")
    static List<String> dnsNames(Chart.Rendered rendered, String component) {
        return (List<String>) spec(certificates(rendered).get(component)).get("dnsNames");
    }

    // ----- Certificates ----------------------------------------------------------------------------------------

    @Test
    void byDefaultTheChartsOwnCaIssuesOneCertificatePerComponent() {
        Map<String, GenericKubernetesResource> certificates = certificates(DEFAULTS);
        assertEquals(Set.of("ca", "auth-service", "registration-service", "pgbouncer", "postgresql", "emqx", "emqx-client"),
                certificates.keySet());
        List<GenericKubernetesResource> issuers = generic(DEFAULTS, "Issuer");
        assertEquals(List.of(Chart.name("selfsigned"), Chart.name("ca")), issuers.stream().map(i -> i.getMetadata().getName()).toList());
        assertEquals(Map.of("secretName", Chart.name("ca")), spec(issuers.get(1)).get("ca"));
        Map<String, Object> auth = spec(certificates.get("auth-service"));
        assertEquals(Chart.name("auth-service-tls"), auth.get("secretName"));
        assertEquals(List.of(Chart.name("auth-service"), Chart.name("auth-service") + ".identity", AUTH_HOST,
                AUTH_HOST + ".cluster.local"), auth.get("dnsNames"));
        assertEquals(Map.of("name", Chart.name("ca"), "kind", "Issuer", "group", "cert-manager.io"), auth.get("issuerRef"));
        assertEquals(List.of("digital signature", "key encipherment", "client auth"),
                spec(certificates.get("emqx-client")).get("usages"));
        assertEquals(true, spec(certificates.get("ca")).get("isCA"));
        for (GenericKubernetesResource c : certificates.values()) {
            assertKnownCertificateFields(c);
        }
    }

    @Test
    void aNamedIssuerSignsEveryCertificateAndTheChartMakesNoCa() {
        Chart.Rendered rendered = Chart.render(Chart.set("tls.certManager.issuerRef.name", "corp-ca",
                "tls.certManager.issuerRef.kind", "ClusterIssuer", "emqx.listeners.tls.dnsNames[0]", "mqtt.example.com"));
        assertTrue(generic(rendered, "Issuer").isEmpty());
        Map<String, GenericKubernetesResource> certificates = certificates(rendered);
        assertFalse(certificates.containsKey("ca"));
        for (GenericKubernetesResource c : certificates.values()) {
            assertEquals(Map.of("name", "corp-ca", "kind", "ClusterIssuer", "group", "cert-manager.io"), spec(c).get("issuerRef"));
        }
        assertTrue(((List<?>) spec(certificates.get("emqx")).get("dnsNames")).contains("mqtt.example.com"));
    }

    @Test
    void existingSecretsReplaceCertManagerAndEachMissingOneIsRefused() {
        Map<String, Object> sets = Chart.set("tls.certManager.enabled", false,
                "tls.existingSecrets.authService", "my-auth", "tls.existingSecrets.registrationService", "my-reg",
                "tls.existingSecrets.pgbouncer", "my-pgb", "tls.existingSecrets.postgresql", "my-pg",
                "tls.existingSecrets.emqx", "my-emqx", "tls.existingSecrets.emqxClient", "my-emqx-client");
        Chart.Rendered rendered = Chart.render(sets);
        assertTrue(generic(rendered, "Certificate").isEmpty() && generic(rendered, "Issuer").isEmpty());
        assertEquals("my-auth", volume(pod(rendered, "auth-service"), "tls").getSecret().getSecretName());
        assertEquals("my-pgb", volume(pod(rendered, "auth-service"), "db-ca").getSecret().getSecretName());
        assertEquals("my-emqx-client", volume(pod(rendered, "auth-service"), "client-ca").getSecret().getSecretName());
        assertEquals("my-pg", volume(pod(rendered, "pgbouncer"), "db-ca").getSecret().getSecretName());
        PodSpec emqx = rendered.get(StatefulSet.class, Chart.name("emqx")).getSpec().getTemplate().getSpec();
        assertEquals("my-emqx", volume(emqx, "tls").getSecret().getSecretName());

        Map<String, Object> missing = new java.util.LinkedHashMap<>(sets);
        missing.remove("tls.existingSecrets.pgbouncer");
        String message = Chart.refusal(missing);
        assertTrue(message.contains("tls.existingSecrets.pgbouncer is empty"), message);
        assertFalse(message.contains("tls.existingSecrets.authService"), message);
    }

    @Test
    void anExternalDatabaseNeedsItsCaAndOnlyPostgresqlIsVerifiedAgainstIt() {
        Map<String, Object> external = Chart.set("postgresql.enabled", false, "postgresql.external.host", "db.example.internal");
        String message = Chart.refusal(external);
        assertTrue(message.contains("tls.database.caSecret"), message);
        Map<String, Object> withCa = new java.util.LinkedHashMap<>(external);
        withCa.put("tls.database.caSecret", "db-ca-bundle");
        Chart.Rendered rendered = Chart.render(withCa);
        assertEquals("db-ca-bundle", volume(pod(rendered, "pgbouncer"), "db-ca").getSecret().getSecretName());
        assertEquals("db-ca-bundle", volume(pod(rendered, "registration-service"), "schema-ca").getSecret().getSecretName());
        for (String service : List.of("auth-service", "registration-service")) {
            assertEquals(Chart.name("pgbouncer-tls"), volume(pod(rendered, service), "db-ca").getSecret().getSecretName(),
                    service + " verifies PgBouncer against PgBouncer's own Secret, not the external database's CA");
        }
        assertFalse(certificates(rendered).containsKey("postgresql"));
    }

    /**
     * An external PostgreSQL with the chart's own CA (ci/external-db-own-emqx-values.yaml): every Secret a pod mounts
     * or reads is either made by the release (rendered, or issued by a rendered Certificate) or one of the Secrets
     * the operator creates before installing, none of which holds anything the install creates. So one install
     * works: no Secret must be assembled from the chart's CA after it.
     */
    @Test
    void anExternalDatabaseWithTheChartsCaInstallsInOnePass() {
        Chart.Rendered rendered = Chart.render(Map.of(), Chart.DIR.resolve("ci/external-db-own-emqx-values.yaml"));
        Set<String> made = new TreeSet<>();
        rendered.all(io.fabric8.kubernetes.api.model.Secret.class).forEach(s -> made.add(s.getMetadata().getName()));
        generic(rendered, "Certificate").forEach(c -> made.add((String) spec(c).get("secretName")));
        assertTrue(made.contains(Chart.name("pgbouncer-tls")), "PgBouncer's certificate comes from the chart's CA: " + made);

        Set<String> beforehand = new TreeSet<>();
        for (Deployment deployment : rendered.all(Deployment.class)) {
            PodSpec pod = deployment.getSpec().getTemplate().getSpec();
            pod.getVolumes().stream().filter(v -> v.getSecret() != null).map(v -> v.getSecret().getSecretName())
                    .filter(name -> !made.contains(name)).forEach(beforehand::add);
            List<Container> containers = new ArrayList<>(pod.getContainers());
            if (pod.getInitContainers() != null) {
                containers.addAll(pod.getInitContainers());
            }
            containers.stream().flatMap(c -> c.getEnv() == null ? java.util.stream.Stream.empty() : c.getEnv().stream())
                    .filter(e -> e.getValueFrom() != null && e.getValueFrom().getSecretKeyRef() != null)
                    .map(e -> e.getValueFrom().getSecretKeyRef().getName()).filter(name -> !made.contains(name))
                    .forEach(beforehand::add);
        }
        // The test values name a key Secret for the fast path (test-secrets.yaml); the chart generates one otherwise.
        beforehand.remove("test-fastpath-keys");
        assertEquals(Set.of("identity-db", "identity-db-ca", "registration-api-tokens"), beforehand,
                "Secrets the operator must create: the database password, the database's own CA, the API tokens");

        PodSpec registration = pod(rendered, "registration-service");
        assertEquals("identity-db-ca", volume(registration, "schema-ca").getSecret().getSecretName());
        assertEquals("/etc/device-identity/schema-ca/ca.crt",
                ServicesTest.env(rendered, "registration-service").get("IDENTITY_SCHEMA_SSLROOTCERT"));
        assertEquals(Map.of("/etc/device-identity/tls", "tls", "/etc/device-identity/db-ca", "db-ca",
                "/etc/device-identity/schema-ca", "schema-ca"), readOnlyMounts(registration.getContainers().get(0)));
        assertEquals(Chart.name("pgbouncer-tls"), volume(registration, "db-ca").getSecret().getSecretName());
        assertEquals("identity-db-ca", volume(pod(rendered, "pgbouncer"), "db-ca").getSecret().getSecretName());
    }

    /**
     * Your own EMQX's client certificate, renewed: with emqx.clientCertificateNamespace the chart issues it into EMQX's
     * namespace too, the same certificate from the same ClusterIssuer, so cert-manager renews the copy EMQX mounts.
     */
    @Test
    void yourOwnEmqxGetsItsClientCertificateIssuedAndRenewedInItsNamespace() {
        Map<String, Object> own = Chart.set("emqx.enabled", false, "emqx.clientCertificateNamespace", "emqx",
                "tls.certManager.issuerRef.name", "corp-ca", "tls.certManager.issuerRef.kind", "ClusterIssuer");
        Chart.Rendered rendered = Chart.render(own);
        List<GenericKubernetesResource> clients = generic(rendered, "Certificate").stream()
                .filter(c -> "emqx-client".equals(c.getMetadata().getLabels().get("app.kubernetes.io/component"))).toList();
        Map<String, GenericKubernetesResource> byNamespace = clients.stream()
                .collect(Collectors.toMap(c -> c.getMetadata().getNamespace(), c -> c));
        assertEquals(Set.of(Chart.NAMESPACE, "emqx"), byNamespace.keySet(),
                "the release keeps its own (auth-service trusts its ca.crt) and EMQX's namespace gets one");
        Map<String, Object> inEmqx = spec(byNamespace.get("emqx"));
        Map<String, Object> inRelease = spec(byNamespace.get(Chart.NAMESPACE));
        assertKnownCertificateFields(byNamespace.get("emqx"));
        assertEquals(Chart.name("emqx-client-tls"), inEmqx.get("secretName"));
        assertEquals(Map.of("name", "corp-ca", "kind", "ClusterIssuer", "group", "cert-manager.io"), inEmqx.get("issuerRef"));
        for (String field : List.of("commonName", "usages", "duration", "renewBefore", "privateKey", "issuerRef")) {
            assertEquals(inRelease.get(field), inEmqx.get(field), field);
        }
        assertEquals("720h", inEmqx.get("renewBefore"), "cert-manager renews it a month before it ends");
        String notes = NotesTest.notes(own);
        assertTrue(notes.contains("mount the Secret\n" + Chart.name("emqx-client-tls") + " of namespace emqx there;"
                + " cert-manager renews it"), notes);

        Map<String, Object> unset = new java.util.LinkedHashMap<>(own);
        unset.remove("emqx.clientCertificateNamespace");
        assertTrue(generic(Chart.render(unset), "Certificate").stream()
                .allMatch(c -> Chart.NAMESPACE.equals(c.getMetadata().getNamespace())), "off unless asked");
        assertTrue(NotesTest.notes(unset).contains("again after every renewal, or set emqx.clientCertificateNamespace"));
    }

    @Test
    void anEmqxNamespaceWithTheChartsOwnCaOrTheChartsEmqxIsRefused() {
        String ownCa = Chart.refusal(Chart.set("emqx.enabled", false, "emqx.clientCertificateNamespace", "emqx"));
        assertTrue(ownCa.contains("emqx.clientCertificateNamespace=emqx needs tls.certManager.issuerRef of kind"
                + " ClusterIssuer"), ownCa);
        String chartsEmqx = Chart.refusal(Chart.set("emqx.clientCertificateNamespace", "emqx",
                "tls.certManager.issuerRef.name", "corp-ca", "tls.certManager.issuerRef.kind", "ClusterIssuer"));
        assertTrue(chartsEmqx.contains("is for an EMQX of your own (emqx.enabled=false)"), chartsEmqx);
    }

    // ----- Refusals and their opt-out --------------------------------------------------------------------------

    @ParameterizedTest
    @ValueSource(strings = {"tls.enabled=false", "tls.database.sslMode=require", "tls.database.sslMode=disable",
            "tls.database.pgbouncerClientSslMode=prefer", "emqx.listeners.plaintext=true,emqx.service.type=LoadBalancer",
            "emqx.listeners.plaintext=true,emqx.service.type=NodePort"})
    void aValueThatLeavesACredentialHopInClearIsRefusedNamingTheOptOutAndRendersWithIt(String values) {
        Map<String, Object> sets = new java.util.LinkedHashMap<>();
        for (String pair : values.split(",")) {
            String[] kv = pair.split("=", 2);
            sets.put(kv[0], kv[1].equals("true") || kv[1].equals("false") ? Boolean.valueOf(kv[1]) : kv[1]);
        }
        String message = Chart.refusal(sets);
        assertTrue(message.contains(OPT_OUT), message);
        assertTrue(message.contains(sets.keySet().iterator().next()), "names the value: " + message);
        sets.put(OPT_OUT, REASON);
        assertFalse(Chart.render(sets).resources().isEmpty());
    }

    @Test
    void theOptOutTurnsTlsOffEverywhereItIsAskedTo() throws Exception {
        Chart.Rendered off = Chart.render(Chart.set("tls.enabled", false, OPT_OUT, REASON));
        Map<String, String> env = ServicesTest.env(off, "auth-service");
        assertEquals("false", env.get("IDENTITY_TLS_ENABLED"));
        assertEquals("disable", env.get("IDENTITY_DB_SSLMODE"));
        assertFalse(env.containsKey("IDENTITY_TLS_CERT_FILE"));
        assertEquals("9000", env.get("IDENTITY_MANAGEMENT_PORT"), "the management port does not depend on TLS");
        assertTrue(generic(off, "Certificate").isEmpty());
        assertFalse(PgBouncerTest.ini(off).section("pgbouncer").containsKey("client_tls_sslmode"));
        List<Map<String, Object>> chain = JSON.readValue(EmqxTest.env(off).get("EMQX_AUTHENTICATION"), new TypeReference<>() { });
        assertEquals(Map.of("enable", false), chain.get(0).get("ssl"));
        assertTrue(((String) chain.get(0).get("url")).startsWith("http://"));
    }

    @Test
    void plaintextMqttInsideTheClusterNeedsNoOptOutBecauseItIsExplicit() {
        assertFalse(Chart.render(Chart.set("emqx.listeners.plaintext", true)).resources().isEmpty());
    }

    // ----- Roles ---------------------------------------------------------------------------------------------------

    @Test
    void theBundledPostgresqlsSuperuserOnlyBootstrapsAndNoRuntimeRoleIsOne() {
        PodSpec pod = DEFAULTS.get(StatefulSet.class, Chart.name("postgresql")).getSpec().getTemplate().getSpec();
        Container postgres = pod.getContainers().get(0);
        assertEquals("postgres", env(postgres, "POSTGRES_USER").getValue());
        assertEquals(Chart.name("postgresql-admin"), env(postgres, "POSTGRES_PASSWORD").getValueFrom().getSecretKeyRef().getName());
        Container roles = pod.getContainers().stream().filter(c -> c.getName().equals("roles")).findFirst().orElseThrow();
        String script = String.join("\n", roles.getArgs());
        assertTrue(script.contains("ALTER ROLE :\"owner\" WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE"), script);
        assertTrue(script.contains("ALTER ROLE :\"auth_user\" WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE"), script);
        assertTrue(script.contains("ALTER DATABASE :\"db\" OWNER TO :\"owner\""), script);
        assertEquals("/var/run/postgresql", env(roles, "PGHOST").getValue(), "the superuser over the pod's socket only");
        assertEquals(Chart.name("db") + "/password", ref(env(roles, "OWNER_PASSWORD")));
        assertEquals(Chart.name("db-auth") + "/password", ref(env(roles, "AUTH_DB_PASSWORD")));
        String hba = DEFAULTS.get(ConfigMap.class, Chart.name("postgresql-hba")).getData().get("pg_hba.conf");
        assertTrue(hba.lines().map(l -> List.of(l.trim().split("\\s+"))).toList()
                .contains(List.of("host", "all", "postgres", "0.0.0.0/0", "reject")), hba);
        // No other workload holds the superuser's password.
        for (Deployment d : DEFAULTS.all(Deployment.class)) {
            assertFalse(d.getSpec().getTemplate().getSpec().toString().contains(Chart.name("postgresql-admin")),
                    d.getMetadata().getName());
        }
        // registration-service waits, as the owner and over verified TLS, until the roles are in place.
        Container init = pod(DEFAULTS, "registration-service").getInitContainers().get(0);
        assertEquals("db-roles", init.getName());
        assertEquals("verify-full", env(init, "PGSSLMODE").getValue());
        assertEquals(Chart.name("db") + "/username", ref(env(init, "PGUSER")));
        assertTrue(String.join("\n", init.getArgs()).contains("NOT rolsuper"));
    }

    @Test
    void pgbouncersConsoleUsersAreItsOwnNotTheApplications() {
        Map<String, String> ini = PgBouncerTest.ini(DEFAULTS).section("pgbouncer");
        assertEquals("pgbouncer_admin", ini.get("admin_users"));
        assertEquals("pgbouncer_stats", ini.get("stats_users"));
        String userlist = PgBouncerTest.decode(DEFAULTS.get(io.fabric8.kubernetes.api.model.Secret.class, Chart.name("pgbouncer")),
                "userlist.txt");
        assertTrue(userlist.contains("\"pgbouncer_admin\" \"test-pgbouncer-admin-password\""), userlist);
        assertTrue(userlist.contains("\"pgbouncer_stats\" \"test-pgbouncer-stats-password\""), userlist);
        assertEquals("postgres://pgbouncer_stats:test-pgbouncer-stats-password@127.0.0.1:5432/pgbouncer?sslmode=require",
                PgBouncerTest.decode(Chart.render(Chart.set("pgbouncer.exporter.enabled", true))
                        .get(io.fabric8.kubernetes.api.model.Secret.class, Chart.name("pgbouncer")), "exporter-connection-string"));
        String message = Chart.refusal(Chart.set("pgbouncer.console.statsUser", "identity"));
        assertTrue(message.contains("pgbouncer.console.statsUser \"identity\" is a database role"), message);
    }

    // ----- NetworkPolicies -----------------------------------------------------------------------------------------

    @Test
    void emqxsPolicyOpensTheTlsListenersKeepsTheClusterPortsToItsPodsAndTheDashboardToANamedNamespace() {
        var policy = Chart.render(Chart.set("emqx.dashboard.allowedNamespace", "ops"))
                .get(io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy.class, Chart.name("emqx"));
        var rules = policy.getSpec().getIngress();
        assertEquals(3, rules.size());
        assertTrue(rules.get(0).getFrom() == null || rules.get(0).getFrom().isEmpty(), "MQTT is open to every device");
        assertEquals(List.of(8883, 8084), rules.get(0).getPorts().stream().map(p -> p.getPort().getIntVal()).toList());
        assertEquals(List.of(4370, 5369), rules.get(1).getPorts().stream().map(p -> p.getPort().getIntVal()).toList());
        assertEquals(List.of(NetworkPolicyTest.selector(StatefulSet.class, "emqx")),
                rules.get(1).getFrom().stream().map(p -> p.getPodSelector().getMatchLabels()).toList());
        assertEquals(List.of(18084), rules.get(2).getPorts().stream().map(p -> p.getPort().getIntVal()).toList());
        assertEquals(NetworkPolicyTest.selector(Deployment.class, "registration-service"),
                rules.get(2).getFrom().get(0).getPodSelector().getMatchLabels());
        assertEquals(Map.of("kubernetes.io/metadata.name", "ops"),
                rules.get(2).getFrom().get(1).getNamespaceSelector().getMatchLabels());
        assertEquals(2, rules.get(2).getFrom().size());
        var auth = DEFAULTS.get(io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy.class, Chart.name("auth-service"));
        assertEquals(9000, auth.getSpec().getIngress().get(1).getPorts().get(0).getPort().getIntVal(),
                "scrapers reach the management port only");
    }

    // ----- helpers ---------------------------------------------------------------------------------------------------

    /** cert-manager's Certificate has no fabric8 model (StrictModel): its spec is held to the fields the chart uses. */
    private static void assertKnownCertificateFields(GenericKubernetesResource certificate) {
        Set<String> known = Set.of("secretName", "duration", "renewBefore", "commonName", "dnsNames", "usages",
                "privateKey", "issuerRef", "isCA");
        assertTrue(known.containsAll(spec(certificate).keySet()), () -> certificate.getMetadata().getName() + ": " + spec(certificate).keySet());
        @SuppressWarnings("unchecked")
        Map<String, Object> key = (Map<String, Object>) spec(certificate).get("privateKey");
        assertTrue(Set.of("algorithm", "size", "rotationPolicy").containsAll(key.keySet()));
    }

    private static Map<String, GenericKubernetesResource> certificates(Chart.Rendered rendered) {
        return generic(rendered, "Certificate").stream().collect(Collectors.toMap(
                c -> c.getMetadata().getLabels().get("app.kubernetes.io/component"), c -> c));
    }

    private static List<GenericKubernetesResource> generic(Chart.Rendered rendered, String kind) {
        return rendered.all(GenericKubernetesResource.class).stream()
                .filter(r -> r.getApiVersion().equals("cert-manager.io/v1") && r.getKind().equals(kind)).toList();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> spec(GenericKubernetesResource resource) {
        return (Map<String, Object>) resource.getAdditionalProperties().get("spec");
    }

    private static PodSpec pod(Chart.Rendered rendered, String component) {
        return rendered.get(Deployment.class, Chart.name(component)).getSpec().getTemplate().getSpec();
    }

    private static Volume volume(PodSpec pod, String name) {
        return pod.getVolumes().stream().filter(v -> v.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no volume " + name));
    }

    private static Map<String, String> readOnlyMounts(Container c) {
        return c.getVolumeMounts().stream().filter(m -> Boolean.TRUE.equals(m.getReadOnly()))
                .collect(Collectors.toMap(VolumeMount::getMountPath, VolumeMount::getName));
    }

    private static io.fabric8.kubernetes.api.model.EnvVar env(Container c, String name) {
        return c.getEnv().stream().filter(e -> e.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError(c.getName() + " has no " + name));
    }

    private static String ref(io.fabric8.kubernetes.api.model.EnvVar e) {
        return e.getValueFrom().getSecretKeyRef().getName() + "/" + e.getValueFrom().getSecretKeyRef().getKey();
    }

    private static List<Integer> ports(Service service) {
        List<Integer> ports = new ArrayList<>();
        service.getSpec().getPorts().forEach(p -> ports.add(p.getPort()));
        return ports;
    }
}
