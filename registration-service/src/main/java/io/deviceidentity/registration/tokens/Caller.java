package io.deviceidentity.registration.tokens;

import java.util.Set;

import io.deviceidentity.http.InvalidRequestException;
import io.vertx.ext.web.RoutingContext;

/**
 * Who made a registration request: the id of the token it presented (never the token), that token's scopes, and the
 * address the request came from. Put on the request's {@link RoutingContext} by {@link BearerTokenFilter} once the
 * token is accepted, read by the resources (scope checks that depend on the body) and by {@link WriteAudit}.
 *
 * <p>The address is the TCP peer as Vert.x sees it; behind a proxy, it is the proxy's unless Quarkus is told to trust
 * forwarding headers ({@code quarkus.http.proxy.*}): a client-supplied {@code X-Forwarded-For} is never believed by
 * default.
 */
public record Caller(String tokenId, Set<Scope> scopes, String address) {

    static final String KEY = "io.deviceidentity.registration.caller";
    /** The reason of every 403. */
    public static final String FORBIDDEN = "forbidden";

    public Caller {
        scopes = Set.copyOf(scopes);
    }

    /** The caller of an accepted request; {@code null} before (or without) {@link BearerTokenFilter}. */
    public static Caller of(RoutingContext context) {
        return context.get(KEY);
    }

    public boolean has(Scope scope) {
        return scopes.contains(scope);
    }

    /** A {@code 403 forbidden} unless this token has {@code scope}; {@code what} completes "needed to ...". */
    public void require(Scope scope, String what) {
        if (!has(scope)) {
            throw forbidden(scope, what);
        }
    }

    /** The refusal {@link #require} throws, also for callers that report it otherwise (an import line). */
    public InvalidRequestException forbidden(Scope scope, String what) {
        return new InvalidRequestException(403, FORBIDDEN, "token '" + tokenId + "' lacks the scope '" + scope.label()
                + "', needed to " + what);
    }

    /** The peer address of the request, for logs; {@code -} when Vert.x has none (a Unix socket, a test). */
    static String addressOf(RoutingContext context) {
        var remote = context.request().remoteAddress();
        return remote == null || remote.hostAddress() == null ? "-" : remote.hostAddress();
    }
}
