package io.deviceidentity.registration.api;

import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.Components;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.Operation;
import org.eclipse.microprofile.openapi.models.PathItem;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.eclipse.microprofile.openapi.models.responses.APIResponse;
import org.eclipse.microprofile.openapi.models.responses.APIResponses;
import org.eclipse.microprofile.openapi.models.security.SecurityScheme;

import com.fasterxml.jackson.annotation.JsonProperty;

import io.deviceidentity.registration.RegistrationConfig;
import io.deviceidentity.registration.imports.ImportResource;
import io.smallrye.config.SmallRyeConfig;

/**
 * Completes the OpenAPI document that Quarkus scans from the resources (paths, parameters): every operation's
 * responses from {@link ApiAnswers}, the request bodies (the resources take raw bytes and streams, so the scanner
 * sees none), the schemas of the real answer and error bodies, built from the very records the service serialises
 * ({@code DeviceView}, {@code ErrorBody}) so they cannot drift, and the bearer scheme on every {@code /v1}
 * operation, and what the validators enforce ({@link ApiConstraints}). Registered as {@code mp.openapi.filter}, which
 * Quarkus runs as the service starts: so the document shows the configured minimum password length
 * ({@link RegistrationConfig}, read as the registrar reads it), and {@code MinimumPasswordLengthOverrideTest} fails
 * if that ever moves to build time.
 */
public class ApiDocumentation implements OASFilter {

    public static final String BEARER = "bearer";
    private static final String SCHEMAS = "#/components/schemas/";

    /** The request body of each operation that has one (package-private: ApiSchemaTypesTest reads it). */
    static final Map<String, Map.Entry<String, Class<?>>> REQUEST_BODIES = Map.of(
            ApiAnswers.PUT_DEVICE, Map.entry(ApiAnswers.JSON, RequestBodies.Registration.class),
            ApiAnswers.IMPORT_DEVICES, Map.entry(ImportResource.NDJSON, RequestBodies.ImportLine.class));

    @Override
    public void filterOpenAPI(OpenAPI openAPI) {
        openAPI.info(OASFactory.createInfo().title("Device Identity: registration-service").version("v1")
                .description("Device credential lifecycle: register (PUT, with a password or an existing bcrypt"
                        + " hash), read, revoke; the bulk import of existing hashes, bcrypt or another broker's"
                        + " scheme named by an import line's password_scheme (upgraded to bcrypt at the device's"
                        + " next login); and the report of weak hashes. Client ids are 'clientid' in a device's"
                        + " metadata (EMQX's name, kept for existing clients) and 'client_id' in import lines and"
                        + " reports."));
        Components components = openAPI.getComponents() == null ? OASFactory.createComponents()
                : openAPI.getComponents();
        openAPI.components(components);
        components.addSecurityScheme(BEARER, OASFactory.createSecurityScheme().type(SecurityScheme.Type.HTTP)
                .scheme("bearer").description("one of the tokens in REGISTRATION_TOKENS (<id>:<scopes>:<token>); a"
                        + " call needs the scope its 403 answer names: read, write, superuser or import-replace"));
        if (openAPI.getPaths() == null) {
            return;
        }
        for (Map.Entry<String, PathItem> path : openAPI.getPaths().getPathItems().entrySet()) {
            for (Map.Entry<PathItem.HttpMethod, Operation> operation : path.getValue().getOperations().entrySet()) {
                String key = operation.getKey().name() + " " + path.getKey();
                document(key, path.getKey(), operation.getValue(), components);
                if (operation.getValue().getParameters() != null) {
                    operation.getValue().getParameters().forEach(ApiConstraints::parameter);
                }
            }
        }
        ApiConstraints.schemas(components.getSchemas(), ConfigProvider.getConfig().unwrap(SmallRyeConfig.class)
                .getConfigMapping(RegistrationConfig.class).minPasswordLength());
    }

    private static void document(String key, String path, Operation operation, Components components) {
        List<ApiAnswers.Answer> answers = ApiAnswers.OPERATIONS.get(key);
        if (answers == null) {
            return; // not an API operation: OpenApiDocumentTest fails for one under /v1
        }
        APIResponses responses = OASFactory.createAPIResponses();
        for (ApiAnswers.Answer answer : answers) {
            APIResponse response = OASFactory.createAPIResponse().description(answer.description());
            if (answer.body() != null) {
                response.content(OASFactory.createContent().addMediaType(answer.mediaType(),
                        OASFactory.createMediaType().schema(schema(answer.body(), components))));
            }
            responses.addAPIResponse(Integer.toString(answer.status()), response);
        }
        operation.responses(responses);
        Map.Entry<String, Class<?>> body = REQUEST_BODIES.get(key);
        if (body != null) {
            operation.requestBody(OASFactory.createRequestBody().required(true).content(OASFactory.createContent()
                    .addMediaType(body.getKey(), OASFactory.createMediaType().schema(schema(body.getValue(),
                            components)))));
        }
        if (path.startsWith("/v1/")) {
            operation.addSecurityRequirement(OASFactory.createSecurityRequirement().addScheme(BEARER));
        }
    }

    /** A reference to the record's schema, which is added to the components (with those of its fields) once. */
    private static Schema schema(Class<?> type, Components components) {
        String name = type.getSimpleName();
        if (components.getSchemas() == null || !components.getSchemas().containsKey(name)) {
            Schema object = OASFactory.createSchema().addType(Schema.SchemaType.OBJECT);
            components.addSchema(name, object);
            for (RecordComponent field : type.getRecordComponents()) {
                // Jackson's annotation lands on the accessor (it does not target record components).
                JsonProperty renamed = field.getAccessor().getAnnotation(JsonProperty.class);
                object.addProperty(renamed != null ? renamed.value() : field.getName(),
                        fieldSchema(field.getGenericType(), components));
            }
        }
        return OASFactory.createSchema().ref(SCHEMAS + name);
    }

    private static Schema fieldSchema(Type type, Components components) {
        if (type instanceof ParameterizedType list && list.getRawType() == List.class) {
            return OASFactory.createSchema().addType(Schema.SchemaType.ARRAY)
                    .items(fieldSchema(list.getActualTypeArguments()[0], components));
        }
        if (type instanceof ParameterizedType map && map.getRawType() == Map.class) {
            return OASFactory.createSchema().addType(Schema.SchemaType.OBJECT)
                    .additionalPropertiesSchema(fieldSchema(map.getActualTypeArguments()[1], components));
        }
        Class<?> raw = (Class<?>) type;
        if (raw == String.class) {
            return OASFactory.createSchema().addType(Schema.SchemaType.STRING);
        }
        if (raw == boolean.class || raw == Boolean.class) {
            return OASFactory.createSchema().addType(Schema.SchemaType.BOOLEAN);
        }
        if (raw == int.class || raw == Integer.class || raw == long.class || raw == Long.class) {
            return OASFactory.createSchema().addType(Schema.SchemaType.INTEGER);
        }
        if (raw == Instant.class) {
            return OASFactory.createSchema().addType(Schema.SchemaType.STRING).format("date-time");
        }
        if (raw.isRecord()) {
            return schema(raw, components);
        }
        throw new IllegalStateException("no OpenAPI schema for " + raw + "; add it to ApiDocumentation");
    }
}
