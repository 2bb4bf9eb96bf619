package io.deviceidentity.registration.kicks;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * EMQX's "kick out a client" call, {@code DELETE /api/v5/clients/{clientid}}, authenticated with an API key
 * (HTTP basic auth, key as user, secret as password).
 *
 * <p>The contract, from EMQX 5.8.9's source ({@code emqx/emqx} tag v5.8.9):
 * <ul>
 *   <li>{@code apps/emqx_management/src/emqx_mgmt_api_clients.erl}, {@code schema("/clients/:clientid")} and
 *       {@code kickout/1}: {@code 204} (no body) when the client was kicked, on whichever node holds it;
 *       {@code 404 {"code":"CLIENTID_NOT_FOUND","message":"Client ID not found"}} when no node has a session for it.
 *       Both mean the session is gone, so both deliver the kick. A 404 without that code (a wrong URL, a proxy) is not
 *       taken for "nothing to kick".</li>
 *   <li>{@code apps/emqx_dashboard/src/emqx_dashboard.erl}, {@code api_key_authorize/4}: a wrong key or secret is
 *       {@code 401 BAD_API_KEY_OR_SECRET}; a key whose role may not call the API (Enterprise RBAC) is
 *       {@code 403 UNAUTHORIZED_ROLE}. Both are failed attempts (retried: the key may be fixed meanwhile).</li>
 *   <li>The path is {@code /api/v5} + the route ({@code emqx_dashboard}'s base path). Path bindings are
 *       percent-decoded by cowboy's router; our client ids (ClientIdPolicy) only hold characters a path segment
 *       carries as they are, and anything else would be percent-encoded here.</li>
 * </ul>
 */
public final class EmqxClientsApi {

    static final String CLIENTS_PATH = "/api/v5/clients/";
    private static final String NOT_FOUND_CODE = "CLIENTID_NOT_FOUND";

    private final HttpClient http;
    private final String base;
    private final String authorization;
    private final Duration timeout;

    public EmqxClientsApi(String baseUrl, String apiKey, String apiSecret, Duration timeout) {
        URI.create(baseUrl); // refuses a malformed URL at start, not at the first kick
        this.base = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        this.authorization = "Basic " + Base64.getEncoder()
                .encodeToString((apiKey + ":" + apiSecret).getBytes(StandardCharsets.UTF_8));
        this.timeout = timeout;
        this.http = HttpClient.newBuilder().connectTimeout(timeout).version(HttpClient.Version.HTTP_1_1).build();
    }

    /** The URL the kick of {@code clientId} is sent to. */
    public URI kickUri(String clientId) {
        return URI.create(base + CLIENTS_PATH + pathSegment(clientId));
    }

    /** Sends the kick; never completes exceptionally: every failure is a {@link KickResult#failed} code. */
    public CompletableFuture<KickResult> kick(String clientId) {
        HttpRequest request = HttpRequest.newBuilder(kickUri(clientId))
                .timeout(timeout)
                .header("Authorization", authorization)
                .header("Accept", "application/json")
                .DELETE()
                .build();
        try {
            return http.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray())
                    .handle((response, failure) -> failure == null ? answered(response) : failed(failure));
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(KickResult.failed("io_error"));
        }
    }

    static KickResult answered(HttpResponse<byte[]> response) {
        return switch (response.statusCode()) {
            case 204 -> KickResult.KICKED;
            case 404 -> new String(response.body(), StandardCharsets.UTF_8).contains(NOT_FOUND_CODE)
                    ? KickResult.NOT_CONNECTED
                    : KickResult.failed("status_404");
            case 401 -> KickResult.failed("unauthorized");
            case 403 -> KickResult.failed("forbidden");
            default -> KickResult.failed("status_" + response.statusCode());
        };
    }

    private static KickResult failed(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause()
                : failure;
        if (cause instanceof HttpTimeoutException) {
            return KickResult.failed("timeout");
        }
        if (cause instanceof ConnectException) {
            return KickResult.failed("unreachable");
        }
        return KickResult.failed(cause instanceof IOException ? "io_error" : "error");
    }

    /** RFC 3986 path segment: unreserved characters, ':' and '@' as they are, everything else percent-encoded. */
    static String pathSegment(String value) {
        StringBuilder out = new StringBuilder();
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
                    || c == '-' || c == '.' || c == '_' || c == '~' || c == ':' || c == '@') {
                out.append((char) c);
            } else {
                out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
        }
        return out.toString();
    }
}
