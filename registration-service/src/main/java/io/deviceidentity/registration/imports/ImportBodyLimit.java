package io.deviceidentity.registration.imports;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import io.deviceidentity.registration.RegistrationConfig;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.quarkus.vertx.http.runtime.RouteConstants;
import io.quarkus.vertx.http.runtime.VertxHttpRecorder;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * Exempts the import, and only the import, from {@code quarkus.http.limits.max-body-size} (16 KiB, which keeps every
 * other body small) and gives it {@code identity.registration.import.max-body-size} instead.
 *
 * <p>How Quarkus enforces the limit (quarkus-vertx-http, {@code HttpServerCommonHandlers.enforceMaxBodySize}): one
 * route at order {@link RouteConstants#ROUTE_ORDER_UPLOAD_LIMIT} answers 413 when the {@code Content-Length} header
 * is over it, and otherwise stores the limit under {@link VertxHttpRecorder#MAX_REQUEST_SIZE_KEY}, which the
 * streamed reader of a JAX-RS {@code InputStream} body ({@code VertxInputStream}) enforces. So: just before that
 * route, this one sets the header aside; just after it, puts the header back and replaces the stored limit. The
 * message framing is Netty's, decided before any route runs, so the header's absence in between changes nothing
 * but the check.
 */
@ApplicationScoped
public class ImportBodyLimit {

    private static final String DECLARED_LENGTH = ImportBodyLimit.class.getName() + ".content-length";

    private final long maxBodySize;

    public ImportBodyLimit(RegistrationConfig config) {
        this.maxBodySize = config.imports().maxBodySize().asLongValue();
    }

    void install(@Observes Router router) {
        router.post(ImportResource.PATH).order(RouteConstants.ROUTE_ORDER_UPLOAD_LIMIT - 1).handler(this::setAside);
        router.post(ImportResource.PATH).order(RouteConstants.ROUTE_ORDER_UPLOAD_LIMIT + 1).handler(this::restore);
    }

    private void setAside(RoutingContext context) {
        String declared = context.request().getHeader(HttpHeaderNames.CONTENT_LENGTH);
        if (declared != null) {
            long length;
            try {
                length = Long.parseLong(declared.trim());
            } catch (NumberFormatException malformed) {
                context.next(); // left to Quarkus, which refuses it
                return;
            }
            if (length > maxBodySize) {
                context.next(); // over the import's own limit: Quarkus's 413
                return;
            }
            context.put(DECLARED_LENGTH, declared);
            context.request().headers().remove(HttpHeaderNames.CONTENT_LENGTH);
        }
        context.next();
    }

    private void restore(RoutingContext context) {
        String declared = context.get(DECLARED_LENGTH);
        if (declared != null) {
            context.request().headers().set(HttpHeaderNames.CONTENT_LENGTH, declared);
        }
        context.put(VertxHttpRecorder.MAX_REQUEST_SIZE_KEY, maxBodySize);
        context.next();
    }
}
