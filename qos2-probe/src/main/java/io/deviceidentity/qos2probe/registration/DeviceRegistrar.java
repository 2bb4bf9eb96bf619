package io.deviceidentity.qos2probe.registration;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import javax.net.ssl.SSLException;

import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Registers the probe's devices through registration-service ({@code PUT /v1/devices/{clientId}}, bearer token) so
 * that every CONNECT goes through the real auth chain, and revokes them afterwards. The token and the passwords go
 * into request headers and bodies only, never into a message. 429/503 (overload) are retried after Retry-After. Over
 * HTTPS the service's certificate is checked against the CA of {@code --register-ca-file} ({@link PemTrust}) or the
 * JVM's trust store, and for the URL's host name.
 */
public final class DeviceRegistrar {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final URI devicesUrl;
    private final String token;
    private final Duration timeout;
    private final HttpClient http;
    private final String trust;

    /** Over HTTPS trusting the JVM's trust store (or plain HTTP). */
    public DeviceRegistrar(URI devicesUrl, String token, Duration timeout) {
        this(devicesUrl, token, timeout, null);
    }

    /**
     * @param devicesUrl e.g. https://device-identity-registration-service:8082/v1/devices
     * @param caFile     the PEM CA bundle an https URL's certificate must chain to ({@code --register-ca-file}), in
     *                   place of the JVM's trust store; null: the JVM's
     * @throws IllegalArgumentException when caFile holds no usable certificate
     */
    public DeviceRegistrar(URI devicesUrl, String token, Duration timeout, Path caFile) {
        this.devicesUrl = devicesUrl;
        this.token = token;
        this.timeout = timeout;
        HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(timeout);
        if (caFile != null) {
            builder.sslContext(PemTrust.trusting(caFile));
        }
        this.http = builder.build();
        this.trust = caFile == null ? "the JVM's trust store" : "--register-ca-file " + caFile;
    }

    /** One ACL rule in the registration API's format. */
    public static Map<String, Object> allow(String action, String topic) {
        return Map.of("permission", "allow", "action", action, "topic", topic);
    }

    /** Creates or replaces the device; {@code acl} empty leaves the service's default rules. */
    public void register(String clientId, String password, List<Map<String, Object>> acl)
            throws IOException, InterruptedException {
        Map<String, Object> body = acl.isEmpty() ? Map.of("password", password)
                : Map.of("password", password, "acl", acl);
        HttpRequest request = request(clientId).header("content-type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body))).build();
        int status = send(request);
        if (status != 200 && status != 201) {
            throw new IOException("registering " + clientId + ": HTTP " + status);
        }
    }

    /** Revokes the device (404: already gone, fine). */
    public void revoke(String clientId) throws IOException, InterruptedException {
        int status = send(request(clientId).DELETE().build());
        if (status != 204 && status != 404) {
            throw new IOException("revoking " + clientId + ": HTTP " + status);
        }
    }

    private HttpRequest.Builder request(String clientId) {
        return HttpRequest.newBuilder(URI.create(devicesUrl.toString().replaceAll("/+$", "") + "/" + clientId))
                .timeout(timeout).header("authorization", "Bearer " + token);
    }

    private int send(HttpRequest request) throws IOException, InterruptedException {
        for (int attempt = 1; ; attempt++) {
            HttpResponse<Void> response;
            try {
                response = http.send(request, HttpResponse.BodyHandlers.discarding());
            } catch (SSLException e) {
                // The JDK's own message (PKIX path building failed, No subject alternative names...) says which check
                // refused; nothing of the request (token, password) is in it.
                throw new IOException(request.method() + " " + devicesUrl + ": TLS handshake refused, the server's "
                        + "certificate must chain to a CA of " + trust + " and name " + devicesUrl.getHost() + ": "
                        + e.getMessage(), e);
            }
            int status = response.statusCode();
            if ((status == 429 || status == 503) && attempt < 5) {
                long wait = response.headers().firstValue("retry-after").map(DeviceRegistrar::seconds).orElse(1L);
                Thread.sleep(Math.min(10, Math.max(1, wait)) * 1000);
                continue;
            }
            return status;
        }
    }

    private static long seconds(String value) {
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            return 1;
        }
    }
}
