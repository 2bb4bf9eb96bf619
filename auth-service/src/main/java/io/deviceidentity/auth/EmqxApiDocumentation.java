package io.deviceidentity.auth;

import java.util.ArrayList;
import java.util.List;

import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.Operation;
import org.eclipse.microprofile.openapi.models.media.Content;
import org.eclipse.microprofile.openapi.models.media.Schema;

import io.deviceidentity.auth.authz.AuthzRequest;
import io.deviceidentity.credentials.ClientIdPolicy;
import io.deviceidentity.credentials.PasswordPolicy;

/**
 * Completes auth-service's OpenAPI document with what the two endpoints enforce, from the checks' own constants:
 * {@code /mqtt/authn} is described by {@code META-INF/openapi.yaml} (its route is invisible to the scanner), which
 * cannot name a constant, and {@code /mqtt/authz} is scanned from a method that takes raw bytes, so the scanner sees no
 * body. A client id or password that no device can have is not a {@code 400} here but an answer (EMQX must get a
 * decision), so those limits are described, not made schema constraints. {@code OpenApiConstraintsTest} probes each
 * against the running service. Registered as {@code mp.openapi.filter}.
 */
public class EmqxApiDocumentation implements OASFilter {

    private static final String SCHEMAS = "#/components/schemas/";
    private static final String JSON = "application/json";

    @Override
    public void filterOpenAPI(OpenAPI openAPI) {
        Schema authn = openAPI.getComponents().getSchemas().get("AuthnRequestBody");
        authn.getProperties().get("clientid").description("a client id that does not match ^" + ClientIdPolicy.PATTERN
                + "$ can never be registered: answered as an unknown device, without a database read");
        authn.getProperties().get("password").description("at most " + PasswordPolicy.MAX_BYTES + " UTF-8 bytes"
                + " (bcrypt reads no more); an empty, longer or not valid Unicode password is denied, never cut");

        openAPI.getComponents().addSchema("AuthzRequestBody", authzRequest());
        openAPI.getComponents().addSchema("AuthzAnswerBody", result(List.of("allow", "deny")));
        Operation authz = openAPI.getPaths().getPathItem("/mqtt/authz").getPOST();
        Schema body = OASFactory.createSchema().ref(SCHEMAS + "AuthzRequestBody");
        authz.summary("Authorize a publish or subscribe (EMQX's HTTP authorization source)")
                .requestBody(OASFactory.createRequestBody().required(true)
                        .description("EMQX's body template, as JSON or application/x-www-form-urlencoded; every value"
                                + " a string. At most 16 KiB.")
                        .content(OASFactory.createContent()
                                .addMediaType(JSON, OASFactory.createMediaType().schema(body))
                                .addMediaType("application/x-www-form-urlencoded",
                                        OASFactory.createMediaType().schema(body))))
                .responses(OASFactory.createAPIResponses()
                        .addAPIResponse("200", OASFactory.createAPIResponse().description("the decision: allow when"
                                + " the device's rules (its own or the default ones) allow it, deny otherwise,"
                                + " also for an unknown or revoked device")
                                .content(json("AuthzAnswerBody")))
                        .addAPIResponse("400", OASFactory.createAPIResponse().description("a malformed body, or a"
                                + " missing or invalid field (reason missing_field or invalid_field)")
                                .content(json("ErrorAnswer")))
                        .addAPIResponse("413", OASFactory.createAPIResponse().description("a body over 16 KiB"))
                        .addAPIResponse("415", OASFactory.createAPIResponse()
                                .description("a content type other than JSON or a form").content(json("ErrorAnswer")))
                        .addAPIResponse("503", OASFactory.createAPIResponse().description("not decided in time"
                                + " (overload, deadline, backend_unavailable), with Retry-After")
                                .content(json("ErrorAnswer"))));
    }

    private static Schema authzRequest() {
        Schema request = OASFactory.createSchema().addType(Schema.SchemaType.OBJECT).required(AuthzRequest.REQUIRED);
        for (String field : AuthzRequest.REQUIRED) {
            request.addProperty(field, OASFactory.createSchema().addType(Schema.SchemaType.STRING));
        }
        request.getProperties().get("clientid").description("a client id that does not match ^"
                + ClientIdPolicy.PATTERN + "$ is denied without a database read");
        request.getProperties().get("username").description("compared with the registered one");
        request.getProperties().get("action").enumeration(List.<Object>copyOf(AuthzRequest.ACTIONS));
        request.getProperties().get("topic").minLength(1)
                .description("the topic published to, or the filter subscribed to");
        request.getProperties().get("qos").enumeration(List.<Object>copyOf(AuthzRequest.QOS));
        List<Object> retain = new ArrayList<>(AuthzRequest.RETAIN_TRUE);
        retain.addAll(AuthzRequest.RETAIN_FALSE);
        request.getProperties().get("retain").enumeration(retain);
        request.addProperty("peerhost", OASFactory.createSchema().addType(Schema.SchemaType.STRING)
                .description("only logged"));
        return request;
    }

    private static Schema result(List<Object> values) {
        return OASFactory.createSchema().addType(Schema.SchemaType.OBJECT).required(List.of("result"))
                .addProperty("result", OASFactory.createSchema().addType(Schema.SchemaType.STRING).enumeration(values));
    }

    private static Content json(String schema) {
        return OASFactory.createContent().addMediaType(JSON,
                OASFactory.createMediaType().schema(OASFactory.createSchema().ref(SCHEMAS + schema)));
    }
}
