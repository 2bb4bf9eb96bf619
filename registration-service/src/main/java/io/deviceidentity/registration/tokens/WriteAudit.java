package io.deviceidentity.registration.tokens;

import java.util.Locale;
import java.util.Set;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;

import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerResponseFilter;

import io.deviceidentity.credentials.ClientIdPolicy;
import io.vertx.ext.web.RoutingContext;

/**
 * Who wrote what: one line for every registration write ({@code PUT}, {@code DELETE}, the import's {@code POST}),
 * answered or refused, in the log category {@value #CATEGORY}, e.g.
 * {@code registration.put token=provisioning address=10.1.2.3 clientid=sensor-17 status=201}. It names the token by its
 * id, never the token, and {@code token=-} when none was accepted (a 401). The client id is logged only when a token
 * was accepted and it is a valid id (it came from the caller); the import's line also says whether it replaces
 * ({@code existing=replace}), and is written when its streamed answer starts (what the import then did is its report
 * and its {@code registration.import} outcome line).
 *
 * <p>A response filter runs for every answer, also for those a request filter aborted ({@code 401}, {@code 403}),
 * so no write escapes it; reads are not logged here (their outcome line has them).
 */
public class WriteAudit {

    static final String CATEGORY = "io.deviceidentity.registration.audit";
    private static final Logger LOG = Logger.getLogger(CATEGORY);
    private static final Set<String> WRITES = Set.of("PUT", "DELETE", "POST");

    @ServerResponseFilter
    public void record(ContainerRequestContext request, ContainerResponseContext response, RoutingContext context) {
        String method = request.getMethod();
        if (!WRITES.contains(method) || !LOG.isInfoEnabled()) {
            return;
        }
        Caller caller = Caller.of(context);
        String clientId = request.getUriInfo().getPathParameters().getFirst("clientId");
        String replace = "replace".equals(request.getUriInfo().getQueryParameters().getFirst("existing"))
                ? " existing=replace" : "";
        LOG.infof("registration.%s token=%s address=%s clientid=%s%s status=%d",
                "POST".equals(method) ? "import" : method.toLowerCase(Locale.ROOT),
                caller == null ? "-" : caller.tokenId(),
                caller == null ? Caller.addressOf(context) : caller.address(),
                caller != null && ClientIdPolicy.isValid(clientId) ? clientId : "-", replace,
                response.getStatus());
    }
}
