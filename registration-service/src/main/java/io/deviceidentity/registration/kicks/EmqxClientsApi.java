package io.deviceidentity.registration.kicks;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;

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
 *
 * <p>Over {@code https} (the chart's default: EMQX's dashboard listener on 18084 with EMQX's certificate) the server
 * must present a certificate chaining to the CA file, or to the JVM's trust store without one, for the host of the
 * URL (the JDK client checks the name as HTTPS does). A handshake that fails is the attempt's failure {@code tls}:
 * the API key is never sent to a server that could not prove it is EMQX.
 */
public final class EmqxClientsApi {

    static final String CLIENTS_PATH = "/api/v5/clients/";
    private static final String NOT_FOUND_CODE = "CLIENTID_NOT_FOUND";

    private final String base;
    private final String authorization;
    private final Duration timeout;
    private final Optional<TrustedCaFile> trustedCa;
    private volatile HttpClient http;

    public EmqxClientsApi(String baseUrl, String apiKey, String apiSecret, Duration timeout) {
        this(baseUrl, apiKey, apiSecret, timeout, Optional.empty());
    }

    /** {@code caFile}: the PEM CA bundle EMQX's certificate must chain to; only with an {@code https} URL. */
    public EmqxClientsApi(String baseUrl, String apiKey, String apiSecret, Duration timeout, Optional<Path> caFile) {
        String scheme = parsed(baseUrl).getScheme(); // refuses a malformed URL at start, not at the first kick
        if (!"http".equals(scheme) && !"https".equals(scheme)) {
            throw new IllegalStateException("identity.kicks.emqx-api-url must be an http:// or https:// URL, got "
                    + shown(baseUrl));
        }
        if (caFile.isPresent() && !"https".equals(scheme)) {
            throw new IllegalStateException("identity.kicks.emqx-api-ca-file is set but identity.kicks.emqx-api-url is "
                    + shown(baseUrl) + ": a CA only protects an https:// URL, and over http:// the API key would cross"
                    + " in clear (docs/security.md#encryption-hop-by-hop)");
        }
        this.base = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        this.authorization = "Basic " + Base64.getEncoder()
                .encodeToString((apiKey + ":" + apiSecret).getBytes(StandardCharsets.UTF_8));
        this.timeout = timeout;
        this.trustedCa = caFile.map(TrustedCaFile::new);
        this.http = client(trustedCa.map(ca -> ca.current().context()));
    }

    private HttpClient client(Optional<SSLContext> tls) {
        HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(timeout)
                .version(HttpClient.Version.HTTP_1_1);
        tls.ifPresent(builder::sslContext);
        return builder.build();
    }

    /** The client for this call: a new one (new connections) when the CA file changed since the last call. */
    private HttpClient currentClient() {
        trustedCa.map(TrustedCaFile::current).filter(TrustedCaFile.Current::changed)
                .ifPresent(renewed -> http = client(Optional.of(renewed.context())));
        return http;
    }

    /**
     * The URL as it may be logged or shown in {@code /q/health}: without the user-info part ({@code user:secret@}),
     * which somebody may have put there although the key goes in its own settings, and without a query.
     */
    static String shown(String url) {
        URI uri;
        try {
            uri = URI.create(url);
        } catch (IllegalArgumentException malformed) {
            return NOT_A_URL;
        }
        if (uri.getRawUserInfo() == null && uri.getRawQuery() == null) {
            return url;
        }
        String port = uri.getPort() < 0 ? "" : ":" + uri.getPort();
        return uri.getScheme() + "://" + uri.getHost() + port + (uri.getRawPath() == null ? "" : uri.getRawPath());
    }

    /** How a configured value that is not a URL is shown: never the value, which may carry a user-info part. */
    static final String NOT_A_URL = "(not a valid URL)";

    /**
     * The configured URL parsed; a malformed one is refused without quoting it (the parser's own message does, and
     * the start-up failure is logged), since it may carry a {@code user:secret@} part.
     */
    private static URI parsed(String url) {
        try {
            return URI.create(url);
        } catch (IllegalArgumentException malformed) {
            throw new IllegalStateException("identity.kicks.emqx-api-url is not a valid URL (its value is not shown:"
                    + " it may carry credentials)");
        }
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
            return currentClient().sendAsync(request, HttpResponse.BodyHandlers.ofByteArray())
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
        if (cause instanceof SSLException) {
            return KickResult.failed("tls");
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
