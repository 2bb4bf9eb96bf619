package io.deviceidentity.registration.api;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.eclipse.microprofile.openapi.models.parameters.Parameter;

import io.deviceidentity.credentials.AclRule;
import io.deviceidentity.credentials.ClientIdPolicy;
import io.deviceidentity.credentials.DeviceStatus;
import io.deviceidentity.credentials.PasswordPolicy;
import io.deviceidentity.registration.devices.DeviceView;
import io.deviceidentity.registration.devices.RegistrationRequest;
import io.deviceidentity.registration.imports.ImportResource;
import io.deviceidentity.registration.passwords.BcryptHashFormat;
import io.deviceidentity.registration.reports.WeakHashesResource;

/**
 * What the validators enforce, written into the OpenAPI document from their own constants: the client id's pattern
 * and length ({@link ClientIdPolicy}), the password's limits ({@link PasswordPolicy} and the configured minimum),
 * the bcrypt hash's shape ({@link BcryptHashFormat}), the query parameters' types, bounds and values, the required
 * fields and the enumerations. {@code OpenApiConstraintsTest} probes the running service with values just inside
 * and just outside each documented constraint, so a validator and its description cannot part.
 */
final class ApiConstraints {

    /** How many UTF-8 bytes a string may have: JSON Schema's maxLength counts characters, bcrypt counts bytes. */
    static final String MAX_UTF8_BYTES = "x-max-utf8-bytes";

    static final String PASSWORD_SCHEME_FIELDS = "salt, salt_position, mac_fun, iterations, dk_length, salt_encoding";

    private ApiConstraints() {
    }

    /** A query or path parameter of an operation: its real type and what the resource accepts. */
    static void parameter(Parameter parameter) {
        switch (parameter.getName()) {
            case "clientId" -> parameter.schema(clientId());
            case "limit" -> parameter.schema(integer(WeakHashesResource.MIN_LIMIT, WeakHashesResource.MAX_LIMIT)
                    .defaultValue(WeakHashesResource.DEFAULT_LIMIT))
                    .description("devices per page");
            case "after" -> parameter.schema(string()).description("the 'next' of the previous page");
            case "existing" -> parameter.schema(string().enumeration(List.of(ImportResource.EXISTING_SKIP,
                    ImportResource.EXISTING_REPLACE)).defaultValue(ImportResource.EXISTING_SKIP))
                    .description("a line whose device exists already: skip it, or replace it (an active device"
                            + " only; needs the scope import-replace)");
            case ImportResource.ALLOW_WEAK_SCHEMES -> parameter.schema(string().enumeration(List.of("false", "true"))
                    .defaultValue("false"))
                    .description("true imports lines of a weak legacy scheme (plain, md5, unsalted sha), which are"
                            + " rejected otherwise (reason weak_scheme_not_allowed)");
            default -> throw new IllegalStateException("parameter '" + parameter.getName()
                    + "' has no constraints in ApiConstraints");
        }
    }

    /** The request, answer and error schemas that {@link ApiDocumentation} built from the records. */
    static void schemas(Map<String, Schema> schemas, int minPasswordLength) {
        Schema registration = schemas.get("Registration");
        registration.description("exactly one of password and password_hash");
        registration.additionalPropertiesBoolean(false);
        registration.oneOf(List.of(requiring("password"), requiring("password_hash")));
        registration.getProperties().get("password")
                .minLength(minPasswordLength)
                .maxLength(PasswordPolicy.MAX_BYTES)
                .addExtension(MAX_UTF8_BYTES, PasswordPolicy.MAX_BYTES)
                .description("at least " + minPasswordLength + " characters (Unicode code points; the service's"
                        + " identity.registration.min-password-length) and at most " + PasswordPolicy.MAX_BYTES
                        + " UTF-8 bytes (" + MAX_UTF8_BYTES + ": bcrypt reads no more, and a longer password is"
                        + " refused, never cut), valid Unicode");
        registration.getProperties().get("password_hash").pattern(anchored(BcryptHashFormat.PATTERN))
                .minLength(BcryptHashFormat.LENGTH).maxLength(BcryptHashFormat.LENGTH)
                .description("an existing bcrypt hash, stored as it is (a hash no bcrypt produces, its unused bits"
                        + " set, is refused too)");
        device(registration);

        Schema line = schemas.get("ImportLine");
        line.required(List.of("client_id", "password_hash"));
        line.addProperty("client_id", clientId());
        line.getProperties().get("password_hash").description("a bcrypt hash, or a hash of the scheme"
                + " password_scheme names");
        line.getProperties().get("password_scheme").defaultValue("bcrypt").description("the format of"
                + " password_hash: bcrypt or another broker's scheme, which takes its own fields besides ("
                + PASSWORD_SCHEME_FIELDS + "; docs/api.md, 'Legacy schemes')");
        device(line);

        Schema rule = schemas.get("AclRule");
        rule.required(List.of("permission", "action", "topic"));
        rule.additionalPropertiesBoolean(false);
        rule.getProperties().get("permission").enumeration(List.of(AclRule.ALLOW, AclRule.DENY));
        rule.getProperties().get("action").enumeration(List.of(AclRule.PUBLISH, AclRule.SUBSCRIBE, AclRule.ALL));
        rule.getProperties().get("topic").minLength(1).maxLength(AclRule.MAX_TOPIC_LENGTH)
                .description("an MQTT topic filter; may use ${clientid} and ${username}");
        rule.getProperties().get("qos").minItems(1).maxItems(3).getItems().enumeration(List.of(0, 1, 2));

        Schema view = schemas.get("DeviceView");
        view.required(List.copyOf(view.getProperties().keySet()));
        view.addProperty("clientid", clientId().description("the device's client id; named as in EMQX"
                + " (import lines and reports say client_id)"));
        nullable(view.getProperties().get("username"));
        view.getProperties().get("status").enumeration(Arrays.stream(DeviceStatus.values())
                .map(status -> (Object) status.column()).toList());
        view.getProperties().get("acl_source").enumeration(List.of(DeviceView.ACL_DEVICE, DeviceView.ACL_DEFAULT));

        schemas.get("ErrorBody").required(List.of("reason", "message"));

        Schema page = schemas.get("WeakHashPage");
        page.required(List.copyOf(page.getProperties().keySet()));
        nullable(page.getProperties().get("next"));
        nullable(page.getProperties().get("schemes"));
        Schema weak = schemas.get("WeakHash");
        weak.required(List.copyOf(weak.getProperties().keySet()));
        weak.addProperty("client_id", clientId());

        Schema report = schemas.get("ImportReportLine");
        report.required(List.of("type"));
        report.getProperties().get("type").enumeration(List.of("rejected", "progress", "summary"));
    }

    /** The fields a PUT body and an import line share. */
    private static void device(Schema body) {
        body.getProperties().get("username").minLength(1).maxLength(RegistrationRequest.MAX_USERNAME_LENGTH)
                .description("also required to match at login; no control characters, '/', '+' or '#'");
        body.getProperties().get("superuser").defaultValue(false);
        body.getProperties().get("acl").maxItems(RegistrationRequest.MAX_ACL_RULES)
                .description("the device's rules; left out or empty: the default rules apply");
    }

    static Schema clientId() {
        return string().pattern(anchored(ClientIdPolicy.PATTERN)).minLength(1).maxLength(ClientIdPolicy.MAX_LENGTH);
    }

    /** JSON Schema's patterns match anywhere in the string; the validators match the whole of it. */
    static String anchored(String pattern) {
        return "^" + pattern + "$";
    }

    private static Schema requiring(String field) {
        return OASFactory.createSchema().required(List.of(field));
    }

    private static Schema string() {
        return OASFactory.createSchema().addType(Schema.SchemaType.STRING);
    }

    private static Schema integer(int minimum, int maximum) {
        return OASFactory.createSchema().addType(Schema.SchemaType.INTEGER).minimum(BigDecimal.valueOf(minimum))
                .maximum(BigDecimal.valueOf(maximum));
    }

    private static void nullable(Schema schema) {
        schema.addType(Schema.SchemaType.NULL);
    }
}
