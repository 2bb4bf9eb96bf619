package io.deviceidentity.auth.authn;

import static io.deviceidentity.auth.support.TestDevices.device;
import static io.deviceidentity.auth.support.TestDevices.uniqueId;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.startsWith;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;

/**
 * EMQX's HTTP authenticator and authorization source send either JSON or, with
 * {@code headers { "content-type" = "application/x-www-form-urlencoded" }}, a form body: both are answered the
 * same. Any other content type is a 415 whose message names the two formats.
 */
@QuarkusTest
class BodyFormatsTest {

    private static final String FORM = "application/x-www-form-urlencoded";

    @Test
    void aFormEncodedAuthnBodyIsAnsweredLikeJson() {
        String id = uniqueId("form");
        String password = device(id).password("p@ss w&rd=1+2%").store();

        post("/mqtt/authn", FORM, form("clientid", id, "username", "", "password", password,
                "peerhost", "10.0.0.7", "cert_common_name", "")).then()
                .statusCode(200).contentType(startsWith("application/json"))
                .body("result", equalTo("allow")).body("acl", hasSize(2));
        post("/mqtt/authn", FORM + "; charset=utf-8", form("clientid", id, "username", "", "password", "wrong",
                "peerhost", "10.0.0.7", "cert_common_name", "")).then()
                .statusCode(200).body("result", equalTo("deny"));
    }

    @Test
    void aFormEncodedAuthzBodyIsAnsweredLikeJson() {
        String id = uniqueId("form-authz");
        device(id).store();

        post("/mqtt/authz", FORM, form("clientid", id, "username", "", "peerhost", "10.0.0.7", "action", "publish",
                "topic", "devices/" + id + "/t", "qos", "1", "retain", "false")).then()
                .statusCode(200).body("result", equalTo("allow"));
        post("/mqtt/authz", FORM, form("clientid", id, "username", "", "peerhost", "10.0.0.7", "action", "publish",
                "topic", "devices/other/t", "qos", "1", "retain", "false")).then()
                .statusCode(200).body("result", equalTo("deny"));
    }

    @Test
    void aFormBodyFollowsTheSameFieldRules() {
        post("/mqtt/authn", FORM, form("clientid", "a", "password", "x")).then()
                .statusCode(400).body("reason", equalTo("missing_field")).body("message", containsString("username"));
        post("/mqtt/authn", FORM, "clientid=a&username=&password=x&password=y").then()
                .statusCode(400).body("reason", equalTo("invalid_field"));
        post("/mqtt/authn", FORM, "clientid=a&username=&password=%zz").then()
                .statusCode(400).body("reason", equalTo("malformed_form"));
    }

    /** {@code curl -d '{...}'} without a content-type header sends JSON labelled as a form: it is read as JSON. */
    @Test
    void jsonSentWithCurlsDefaultFormContentTypeIsReadAsJson() {
        String id = uniqueId("curl");
        String password = device(id).store();

        post("/mqtt/authn", FORM, "{\"clientid\":\"" + id + "\",\"username\":\"\",\"password\":\"" + password
                + "\",\"peerhost\":\"127.0.0.1\",\"cert_common_name\":\"\"}").then()
                .statusCode(200).body("result", equalTo("allow"));
    }

    @ParameterizedTest
    @ValueSource(strings = { "text/plain", "application/xml", "multipart/form-data; boundary=x" })
    void anyOtherContentTypeIsA415SayingWhichFormatsAreRead(String type) {
        for (String path : new String[] { "/mqtt/authn", "/mqtt/authz" }) {
            post(path, type, "clientid=a").then()
                    .statusCode(415).contentType(startsWith("application/json"))
                    .body("reason", equalTo("unsupported_media_type"))
                    .body("message", containsString("application/json"))
                    .body("message", containsString("application/x-www-form-urlencoded"));
        }
    }

    private static Response post(String path, String contentType, String body) {
        // RestAssured encodes a form body only from a String, and any other type only from bytes.
        return contentType.startsWith(FORM) ? given().contentType(contentType).body(body).post(path)
                : given().contentType(contentType).body(body.getBytes(StandardCharsets.UTF_8)).post(path);
    }

    private static String form(String... namesAndValues) {
        StringBuilder form = new StringBuilder();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            form.append(i == 0 ? "" : "&").append(URLEncoder.encode(namesAndValues[i], StandardCharsets.UTF_8))
                    .append('=').append(URLEncoder.encode(namesAndValues[i + 1], StandardCharsets.UTF_8));
        }
        return form.toString();
    }
}
