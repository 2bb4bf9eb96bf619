package io.deviceidentity.registration.support;

import java.util.UUID;

import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.specification.RequestSpecification;

/** Client ids unique to one test run, and API calls with the test profile's token. */
public final class Devices {

    /** One of the tokens {@code %test.identity.registration.tokens} configures. */
    public static final String TOKEN = "test-registration-token-0123456789";
    public static final String SECOND_TOKEN = "second-test-token-0123456789";

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
        return RestAssured.given().header("Authorization", "Bearer " + TOKEN).contentType(ContentType.JSON);
    }

    public static String passwordBody(String password) {
        return "{\"password\":\"" + password + "\"}";
    }
}
