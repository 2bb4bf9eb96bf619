package io.deviceidentity.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;

/**
 * The CloudNativePG objects the chart renders against the openAPIV3Schema of the pinned operator release's CRDs
 * (src/test/resources/cnpg/, fetched unchanged from the release tag; k8s/kind.sh installs the same release). An object
 * schema with properties is closed here (additionalProperties false), as the API server's strict field validation,
 * kubectl's default, refuses unknown fields instead of dropping them. The CRDs' CEL rules (x-kubernetes-validations)
 * are not evaluated.
 */
class CloudNativePgSchemaTest {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final Map<String, String> CRDS = Map.of(
            "Cluster", "cnpg/postgresql.cnpg.io_clusters.yaml",
            "Pooler", "cnpg/postgresql.cnpg.io_poolers.yaml");
    private static final Map<String, JsonSchema> SCHEMAS = CRDS.entrySet().stream()
            .collect(Collectors.toMap(Map.Entry::getKey, e -> schema(Chart.resource(e.getValue()))));

    @Test
    void theRenderedClusterAndPoolerMatchThePinnedOperatorsSchema() {
        List<JsonNode> objects = cnpgObjects(Chart.renderYaml(Chart.set(
                "postgresql.cnpg.enabled", true, "postgresql.cnpg.standbyReads.enabled", true,
                "postgresql.cnpg.synchronous.number", 2)));
        assertEquals(List.of("Cluster", "Pooler"), objects.stream().map(o -> o.path("kind").asText()).sorted().toList());
        for (JsonNode object : objects) {
            assertEquals(Set.of(), errors(object), object.path("kind").asText() + " breaks the CRD's schema");
        }
    }

    @Test
    void theKindReleasesClusterMatchesThePinnedOperatorsSchema() {
        List<JsonNode> objects = cnpgObjects(Chart.renderYaml(Map.of(), Chart.DIR.resolve("ci/kind-values.yaml"),
                Chart.DIR.resolve("ci/kind-cnpg-values.yaml")));
        assertEquals(1, objects.size(), objects::toString);
        assertEquals(Set.of(), errors(objects.get(0)));
    }

    @Test
    void aClusterThatBreaksTheSchemaIsRefusedWithEveryFault() throws IOException {
        JsonNode broken = YAML.readTree(Chart.resource("cnpg/cluster-breaking-the-schema.yaml").toFile());
        Set<String> errors = errors(broken);
        String all = String.join("\n", errors);
        assertTrue(all.contains("instance") && all.contains("not defined in the schema"), all);
        assertTrue(all.contains("dataDurability") && all.contains("enum"), all);
        assertTrue(all.contains("roles[0]") && all.contains("name"), all);
        assertTrue(all.contains("enableSuperuserAccess") && all.contains("boolean"), all);
    }

    /** The rendered objects of the operator's API group, parsed as JSON trees (documents in render order). */
    static List<JsonNode> cnpgObjects(String yaml) {
        List<JsonNode> objects = new ArrayList<>();
        for (String document : yaml.split("(?m)^---\\s*$")) {
            try {
                JsonNode node = YAML.readTree(document);
                if (node != null && node.path("apiVersion").asText().startsWith("postgresql.cnpg.io/")) {
                    objects.add(node);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return objects;
    }

    /** The schema's complaints about one object, each "path: message". */
    static Set<String> errors(JsonNode object) {
        JsonSchema schema = SCHEMAS.get(object.path("kind").asText());
        assertTrue(schema != null, "no CRD for " + object.path("kind"));
        Set<String> errors = new TreeSet<>();
        for (ValidationMessage message : schema.validate(object)) {
            errors.add(message.getMessage());
        }
        return errors;
    }

    private static JsonSchema schema(Path crdFile) {
        try {
            JsonNode crd = YAML.readTree(crdFile.toFile());
            JsonNode schema = null;
            for (JsonNode version : crd.path("spec").path("versions")) {
                if (version.path("name").asText().equals("v1")) {
                    schema = version.path("schema").path("openAPIV3Schema").deepCopy();
                }
            }
            assertTrue(schema != null && schema.isObject(), crdFile + " has no v1 openAPIV3Schema");
            close(schema);
            return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V4).getSchema(schema);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Closes every object schema that lists its properties and does not keep unknown fields. */
    private static void close(JsonNode node) {
        if (node instanceof ObjectNode object && object.has("properties") && !object.has("additionalProperties")
                && !object.path("x-kubernetes-preserve-unknown-fields").asBoolean(false)) {
            object.put("additionalProperties", false);
        }
        for (Iterator<JsonNode> children = node.elements(); children.hasNext();) {
            close(children.next());
        }
    }
}
