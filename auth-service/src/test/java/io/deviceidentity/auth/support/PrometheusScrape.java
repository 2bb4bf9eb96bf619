package io.deviceidentity.auth.support;

import static io.restassured.RestAssured.given;

import io.deviceidentity.testsupport.ManagementInterface;

/**
 * Reads the service's metrics the way Prometheus does (GET /q/metrics, text format), for tests that run against the
 * packaged artifact and so cannot inject the MeterRegistry.
 */
public final class PrometheusScrape {

    private PrometheusScrape() {
    }

    /** The sum of every series of {@code sample} (a full sample name such as {@code x_seconds_count}), 0 if absent. */
    public static double sum(String sample) {
        return parse(ManagementInterface.given().accept("text/plain").get("/q/metrics").then().statusCode(200).extract().asString(), sample);
    }

    /** The sum of the series of {@code sample} whose labels contain {@code label} (e.g. {@code reason="x"}). */
    public static double sum(String sample, String label) {
        String text = ManagementInterface.given().accept("text/plain").get("/q/metrics").then().statusCode(200).extract().asString();
        double total = 0;
        for (String line : text.split("\n")) {
            if (line.startsWith(sample + "{") && line.substring(0, line.indexOf('}') + 1).contains(label)) {
                total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return total;
    }

    /** The same, from another instance on {@code port}. */
    public static double sum(int port, String sample) {
        return parse(ManagementInterface.on(port).accept("text/plain").get("/q/metrics").then().statusCode(200).extract()
                .asString(), sample);
    }

    private static double parse(String text, String sample) {
        double total = 0;
        for (String line : text.split("\n")) {
            if (line.startsWith(sample + "{") || line.startsWith(sample + " ")) {
                total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return total;
    }
}
