package io.deviceidentity.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;

/**
 * postgresql.cnpg.enabled: the chart's PostgreSQL is a CloudNativePG Cluster with three instances and synchronous
 * replication that never acknowledges a commit only the primary holds; the same two roles, the chart's TLS, and
 * PgBouncer and the migrations on the -rw Service, which follows the primary through a failover. Standby reads are
 * off unless asked for, and then go through a Pooler in front of -ro.
 */
class CloudNativePgChartTest {

    private static final Map<String, Object> CNPG = Chart.set("postgresql.cnpg.enabled", true);
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void theClusterHasThreeInstancesAndRequiresASynchronousStandbyForEveryCommit() {
        JsonNode spec = cluster(CNPG).path("spec");
        assertEquals(3, spec.path("instances").asInt());
        JsonNode synchronous = spec.path("postgresql").path("synchronous");
        assertEquals("any", synchronous.path("method").asText());
        assertEquals(1, synchronous.path("number").asInt());
        assertEquals("required", synchronous.path("dataDurability").asText());
        assertFalse(spec.path("enableSuperuserAccess").asBoolean(true));
        assertEquals("100", spec.path("postgresql").path("parameters").path("max_connections").asText(),
                "the connection invariants' max_connections is the instances' own");
    }

    @Test
    void theClusterHasTheSameTwoRolesNeitherASuperuserWithTheChartsSecrets() {
        JsonNode spec = cluster(CNPG).path("spec");
        JsonNode initdb = spec.path("bootstrap").path("initdb");
        assertEquals("identity", initdb.path("database").asText());
        assertEquals("identity", initdb.path("owner").asText());
        assertEquals(Chart.name("db"), initdb.path("secret").path("name").asText());
        List<String> roles = new ArrayList<>();
        for (JsonNode role : spec.path("managed").path("roles")) {
            roles.add(role.path("name").asText() + " " + role.path("passwordSecret").path("name").asText());
            assertTrue(role.path("login").asBoolean(), role::toString);
            for (String power : List.of("superuser", "createdb", "createrole", "replication", "bypassrls")) {
                assertFalse(role.path(power).asBoolean(true), role + " must say " + power + ": false");
            }
        }
        assertEquals(List.of("identity " + Chart.name("db"), "identity_auth " + Chart.name("db-auth")), roles);
    }

    @Test
    void pgbouncerAndTheMigrationsAddressTheReadWriteServiceAndNoStatefulSetIsRendered() {
        Chart.Rendered rendered = Chart.render(CNPG);
        String rw = Chart.name("postgresql-rw");
        assertTrue(PgBouncerTest.ini(rendered).section("databases").get("identity").startsWith("host=" + rw + " port=5432 "));
        Map<String, String> registration = rendered.get(ConfigMap.class, Chart.name("registration-service")).getData();
        assertEquals(rw, registration.get("IDENTITY_SCHEMA_HOST"));
        assertEquals("true", registration.get("IDENTITY_SCHEMA_MIGRATE"));
        rendered.assertAbsent(StatefulSet.class, Chart.name("postgresql"));
        assertEquals(Chart.name("pgbouncer"), rendered.get(ConfigMap.class, Chart.name("auth-service")).getData().get("IDENTITY_DB_HOST"));
    }

    @Test
    void theServerCertificateIsTheChartsIssuedForTheClustersServicesAndReloaded() {
        Chart.Rendered rendered = Chart.render(CNPG);
        JsonNode certificates = cluster(CNPG).path("spec").path("certificates");
        assertEquals(Chart.name("postgresql-tls"), certificates.path("serverTLSSecret").asText());
        assertEquals(Chart.name("postgresql-tls"), certificates.path("serverCASecret").asText());
        JsonNode certificate = certificate(rendered, "postgresql");
        List<String> names = new ArrayList<>();
        certificate.path("spec").path("dnsNames").forEach(n -> names.add(n.asText()));
        for (String service : List.of("postgresql-rw", "postgresql-ro", "postgresql-r")) {
            assertTrue(names.contains(Chart.name(service)) && names.contains(Chart.name(service) + ".identity.svc"), names::toString);
        }
        assertFalse(names.contains(Chart.name("postgresql")), "no StatefulSet Service to name: " + names);
        assertTrue(certificate.path("spec").path("secretTemplate").path("labels").has("cnpg.io/reload"), certificate::toString);
        assertEquals(List.of("host all postgres all reject", "hostnossl all all all reject"),
                JSON.convertValue(cluster(CNPG).path("spec").path("postgresql").path("pg_hba"), List.class));
    }

    @Test
    void standbyReadsAreOffByDefaultAndThenGoThroughAPoolerInFrontOfTheReadOnlyService() {
        Map<String, String> off = Chart.render(CNPG).get(ConfigMap.class, Chart.name("auth-service")).getData();
        assertFalse(off.keySet().stream().anyMatch(k -> k.startsWith("IDENTITY_DB_STANDBY")), off::toString);

        Map<String, Object> on = Chart.set("postgresql.cnpg.enabled", true, "postgresql.cnpg.standbyReads.enabled", true,
                "postgresql.cnpg.synchronous.number", 2);
        Chart.Rendered rendered = Chart.render(on);
        Map<String, String> auth = rendered.get(ConfigMap.class, Chart.name("auth-service")).getData();
        assertEquals("true", auth.get("IDENTITY_DB_STANDBY_READS_ENABLED"));
        assertEquals(Chart.name("pgbouncer-ro"), auth.get("IDENTITY_DB_STANDBY_HOST"));
        assertEquals("5432", auth.get("IDENTITY_DB_STANDBY_PORT"));
        Map<String, String> registration = rendered.get(ConfigMap.class, Chart.name("registration-service")).getData();
        assertFalse(registration.containsKey("IDENTITY_DB_STANDBY_HOST"), "registration-service writes: primary only");

        JsonNode pooler = CloudNativePgSchemaTest.cnpgObjects(Chart.renderYaml(on)).stream()
                .filter(o -> o.path("kind").asText().equals("Pooler")).findFirst().orElseThrow();
        assertEquals(Chart.name("pgbouncer-ro"), pooler.path("metadata").path("name").asText());
        assertEquals("ro", pooler.path("spec").path("type").asText());
        assertEquals(Chart.name("postgresql"), pooler.path("spec").path("cluster").path("name").asText());
        JsonNode pgbouncer = pooler.path("spec").path("pgbouncer");
        assertEquals("transaction", pgbouncer.path("poolMode").asText());
        // The chart's PgBouncer sizes, so the connection invariants cover it.
        assertEquals("200", pgbouncer.path("parameters").path("max_client_conn").asText());
        assertEquals("20", pgbouncer.path("parameters").path("default_pool_size").asText());
        assertEquals(2, pooler.path("spec").path("instances").asInt());
        assertEquals(Chart.name("pgbouncer-tls"), pgbouncer.path("clientTLSSecret").path("name").asText());
        List<String> names = new ArrayList<>();
        certificate(rendered, "pgbouncer").path("spec").path("dnsNames").forEach(n -> names.add(n.asText()));
        assertTrue(names.contains(Chart.name("pgbouncer-ro") + ".identity.svc"), names::toString);
    }

    @Test
    void theInstancesAdmitPgbouncerTheMigrationsEachOtherAndTheOperator() {
        NetworkPolicy policy = Chart.render(CNPG).get(NetworkPolicy.class, Chart.name("postgresql"));
        assertEquals(Map.of("cnpg.io/cluster", Chart.name("postgresql")), policy.getSpec().getPodSelector().getMatchLabels());
        String rules = policy.getSpec().getIngress().toString();
        assertTrue(rules.contains("app.kubernetes.io/component=pgbouncer") && rules.contains("app.kubernetes.io/component=registration-service"), rules);
        assertTrue(rules.contains("kubernetes.io/metadata.name=cnpg-system"), rules);
        assertFalse(rules.contains("app.kubernetes.io/component=auth-service"), "auth-service reaches the database through PgBouncer only");
    }

    @Test
    void valuesThatCannotWorkAreRefused() {
        assertTrue(Chart.refusal(Chart.set("postgresql.cnpg.enabled", true, "postgresql.enabled", false,
                "postgresql.external.host", "db.example", "database.password", "x", "tls.database.caSecret", "db-ca"))
                .contains("postgresql.cnpg.enabled needs postgresql.enabled=true"));
        assertTrue(Chart.refusal(Chart.set("postgresql.cnpg.enabled", true, "postgresql.cnpg.instances", 1))
                .contains("needs at least 2 instances"));
        assertTrue(Chart.refusal(Chart.set("postgresql.cnpg.standbyReads.enabled", true,
                "postgresql.cnpg.synchronous.number", 2))
                .contains("standbyReads.enabled needs postgresql.cnpg.enabled"));
        assertTrue(Chart.refusal(Chart.set("postgresql.cnpg.enabled", true, "postgresql.cnpg.standbyReads.enabled", true))
                .contains("standbyReads.enabled needs every standby synchronous (postgresql.cnpg.synchronous.number = instances - 1 = 2, not 1)"));
        assertTrue(Chart.refusal(Chart.set("postgresql.cnpg.enabled", true, "database.existingSecret", "identity-db",
                "database.existingSecretKey", "pw")).contains("database.existingSecretKey is \"pw\""));
    }

    private static JsonNode cluster(Map<String, Object> sets) {
        List<JsonNode> clusters = CloudNativePgSchemaTest.cnpgObjects(Chart.renderYaml(sets)).stream()
                .filter(o -> o.path("kind").asText().equals("Cluster")).toList();
        assertEquals(1, clusters.size());
        assertEquals(Chart.name("postgresql"), clusters.get(0).path("metadata").path("name").asText());
        return clusters.get(0);
    }

    private static JsonNode certificate(Chart.Rendered rendered, String component) {
        return rendered.all(GenericKubernetesResource.class).stream()
                .filter(r -> r.getKind().equals("Certificate")
                        && component.equals(r.getMetadata().getLabels().get("app.kubernetes.io/component")))
                .map(r -> (JsonNode) JSON.valueToTree(r)).findFirst().orElseThrow();
    }
}
