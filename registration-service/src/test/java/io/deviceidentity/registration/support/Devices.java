package io.deviceidentity.registration.support;

import java.util.UUID;

import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.specification.RequestSpecification;

/** Client ids unique to one test run, and API calls with the test profile's token. */
public final class Devices {

    /** The tokens {@code %test.identity.registration.tokens} configures: this one (id admin) has every scope. */
    public static final String TOKEN = "test-registration-token-0123456789";
    /** Configured in the format before ids: token-2, every scope. */
    public static final String SECOND_TOKEN = "second-test-token-0123456789";
    /** Id reader, scope read only. */
    public static final String READER_TOKEN = "test-reader-token-0123456789";
    /** Id writer, scope write only. */
    public static final String WRITER_TOKEN = "test-writer-token-0123456789";
    /** Id importer, scopes write and import-replace. */
    public static final String IMPORTER_TOKEN = "test-importer-token-0123456789";
    /** The value of identity.registration.tokens for the packaged artifact: the test profile's. */
    public static final String TOKENS = "admin:read+write+superuser+import-replace:" + TOKEN + "," + SECOND_TOKEN
            + ",reader:read:" + READER_TOKEN + ",writer:write:" + WRITER_TOKEN + ",importer:write+import-replace:"
            + IMPORTER_TOKEN;

    private Devices() {
    }

    /** A prefix no earlier run used, e.g. {@code t-lifecycle-3f2a9c1b-}. */
    public static String uniquePrefix(String test) {
        return "t-" + test + "-" + UUID.randomUUID().toString().substring(0, 8) + "-";
    }

    public static String uniqueId(String test) {
        return uniquePrefix(test) + "d";
    }

    public static RequestSpecification api() {
        return as(TOKEN);
    }

    /** A call with {@code token}. */
    public static RequestSpecification as(String token) {
        return RestAssured.given().header("Authorization", "Bearer " + token).contentType(ContentType.JSON);
    }

    public static String passwordBody(String password) {
        return "{\"password\":\"" + password + "\"}";
    }
}
