package io.deviceidentity.testsupport;

import io.restassured.RestAssured;

/** The OpenAPI document the service under test serves, which its tests hold against the service's behaviour. */
public final class OpenApiDocument {

    private OpenApiDocument() {
    }

    /** {@code /q/openapi} as JSON text, as a client generator would fetch it. */
    public static String served() {
        return RestAssured.given().accept("application/json").get("/q/openapi?format=json").then().statusCode(200)
                .extract().asString();
    }
}
