package io.deviceidentity.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.Map;

import org.eclipse.microprofile.config.ConfigProvider;

import io.restassured.RestAssured;
import io.restassured.specification.RequestSpecification;

/**
 * Requests to the service's management interface (health, metrics), which has a port of its own and speaks plain
 * HTTP whatever the main port does. For {@code @QuarkusTest} Quarkus picks the port ({@code %test} test-port 0) and
 * reports it as {@code quarkus.management.test-port}; for a packaged artifact the test resource picks a free one
 * here ({@link #claimFreePort}), since Quarkus reads only the main port back from the artifact's log.
 */
public final class ManagementInterface {

    private static volatile Integer launched;

    private ManagementInterface() {
    }

    /** A free port for a launched artifact's management interface. */
    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The settings that put a service's management interface on {@code port}: the packaged artifact (production
     * profile) reads {@code identity.management.port}, {@code @QuarkusTest} its test port.
     */
    public static Map<String, String> settings(int port) {
        return Map.of("identity.management.port", Integer.toString(port),
                "quarkus.management.test-port", Integer.toString(port));
    }

    /** A free port for the service the next tests talk to, remembered until {@link #forget()}; its settings. */
    public static Map<String, String> claimFreePort() {
        int port = freePort();
        launched = port;
        return settings(port);
    }

    /** The service that {@link #claimFreePort()} was for has stopped. */
    public static void forget() {
        launched = null;
    }

    public static int port() {
        Integer port = launched;
        return port != null ? port
                : ConfigProvider.getConfig().getValue("quarkus.management.test-port", Integer.class);
    }

    /** A RestAssured request to the management interface of the service under test. */
    public static RequestSpecification given() {
        return on(port());
    }

    /** A RestAssured request to the management interface on {@code port} (a second instance a test started). */
    public static RequestSpecification on(int port) {
        return RestAssured.given().baseUri("http://localhost").port(port);
    }

    /**
     * The service's metrics page (GET /q/metrics, Prometheus text format), as Prometheus scrapes it; its numbers are
     * read with identity-core's PrometheusText, the one parser of that format.
     */
    public static String metrics() {
        return metrics(port());
    }

    /** The same, from the instance whose management interface is on {@code port}. */
    public static String metrics(int port) {
        return on(port).accept("text/plain").get("/q/metrics").then().statusCode(200).extract().asString();
    }
}
