package io.deviceidentity.registration.devices;

import java.util.concurrent.CompletionStage;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.deviceidentity.credentials.ClientIdPolicy;
import io.deviceidentity.credentials.CredentialFinder;
import io.deviceidentity.http.Answer;
import io.deviceidentity.http.ErrorBody;
import io.deviceidentity.http.ErrorResponses;
import io.deviceidentity.http.InvalidRequestException;
import io.deviceidentity.http.RequestAnswerer;
import io.deviceidentity.metrics.MetricNames;
import io.deviceidentity.overload.DatabaseWork;
import io.deviceidentity.overload.Lane;
import io.deviceidentity.registration.passwords.WeakHashes;
import io.deviceidentity.registration.tokens.Caller;
import io.deviceidentity.registration.tokens.RequiresScope;
import io.deviceidentity.registration.tokens.Scope;
import io.smallrye.common.annotation.NonBlocking;
import io.vertx.ext.web.RoutingContext;

/**
 * The device credential API. Callers are authenticated by {@link io.deviceidentity.registration.tokens.BearerTokenFilter}
 * before any of these methods runs, which also checks each method's {@link RequiresScope}; a body that stores a
 * superuser, or a rule beyond the device's own topics, needs the {@code superuser} scope besides
 * ({@link GrantedScopes}), checked here before any hash. Every answer is logged once and counted under
 * {@code identity.registration.outcomes} with its result and reason.
 *
 * <ul>
 *   <li>{@code PUT} → 201 created / 200 replaced (a revoked device is re-activated), with the device's metadata;</li>
 *   <li>{@code GET} → 200 with the metadata of an active or revoked device (never its hash) / 404;</li>
 *   <li>{@code DELETE} → 204 revoked (also when revoked already: DELETE is idempotent) / 404 when never registered;
 *       auth-service then denies the device.</li>
 * </ul>
 */
@Path("/v1/devices/{clientId}")
@Produces(MediaType.APPLICATION_JSON)
public class DevicesResource {

    static final String RESULT_OK = "ok";

    private final DeviceRegistrar registrar;
    private final DeviceStore store;
    private final CredentialFinder credentials;
    private final Lane database;
    private final RequestAnswerer answerer;
    private final ObjectMapper json;
    private final WeakHashes weakHashes;

    public DevicesResource(DeviceRegistrar registrar, DeviceStore store, CredentialFinder credentials,
            @DatabaseWork Lane database, RequestAnswerer answerer, ObjectMapper json, WeakHashes weakHashes) {
        this.weakHashes = weakHashes;
        this.registrar = registrar;
        this.store = store;
        this.credentials = credentials;
        this.database = database;
        this.answerer = answerer;
        this.json = json;
    }

    /**
     * Runs on the event loop only to validate (cheap, and the body is at most 16 KiB); the hash runs on the bcrypt
     * executor and the write on the database lane, so no thread here waits on either. A write that has begun is
     * answered with its own result, never cut short by the deadline.
     */
    @PUT
    @NonBlocking
    @RequiresScope(Scope.WRITE)
    @Consumes(MediaType.WILDCARD)
    public CompletionStage<Response> put(@PathParam("clientId") String clientId, byte[] body,
            @Context RoutingContext context) {
        return answerer.answerToCompletion("registration.put", MetricNames.REGISTRATION_OUTCOMES, context, clientId,
                () -> {
                    requireValid(clientId);
                    RegistrationRequest request = RegistrationRequest.parse(json, clientId, body);
                    InvalidRequestException refused = GrantedScopes.refusal(Caller.of(context), clientId, request,
                            "store");
                    if (refused != null) {
                        throw refused;
                    }
                    return request;
                },
                (request, deadline) -> registrar.register(clientId, request, deadline)
                        .thenApply(saved -> {
                            weakHashes.stored(request.passwordHash());
                            return savedAnswer(saved);
                        }));
    }

    @GET
    @NonBlocking
    @RequiresScope(Scope.READ)
    public CompletionStage<Response> get(@PathParam("clientId") String clientId, @Context RoutingContext context) {
        return answerer.answerToCompletion("registration.get", MetricNames.REGISTRATION_OUTCOMES, context, clientId,
                () -> requireValid(clientId),
                (id, deadline) -> database.run(deadline, () -> credentials.find(id, false))
                        .thenApply(found -> found.map(device -> ok(Response.ok(DeviceView.of(device)), "found"))
                                .orElseGet(DevicesResource::notFound)));
    }

    @DELETE
    @NonBlocking
    @RequiresScope(Scope.WRITE)
    public CompletionStage<Response> delete(@PathParam("clientId") String clientId, @Context RoutingContext context) {
        return answerer.answerToCompletion("registration.delete", MetricNames.REGISTRATION_OUTCOMES, context, clientId,
                () -> requireValid(clientId),
                (id, deadline) -> database.run(deadline, () -> revoke(id))
                        .thenApply(revocation -> switch (revocation) {
                            case REVOKED -> new Answer(Response.noContent().build(), RESULT_OK, "revoked");
                            case ALREADY_REVOKED -> new Answer(Response.noContent().build(), RESULT_OK,
                                    "already_revoked");
                            case UNKNOWN -> notFound();
                        }));
    }

    private enum Revocation { REVOKED, ALREADY_REVOKED, UNKNOWN }

    /**
     * Revokes an active device. A device revoked already is answered like a fresh revocation (DELETE is idempotent,
     * and GET shows the device, {@code "status":"revoked"}); only a client id never registered is a 404. The second
     * read runs only when the update changed nothing, one statement after the other on the same database thread.
     */
    private Revocation revoke(String clientId) throws java.sql.SQLException {
        if (store.revoke(clientId)) {
            return Revocation.REVOKED;
        }
        return credentials.find(clientId, false).isPresent() ? Revocation.ALREADY_REVOKED : Revocation.UNKNOWN;
    }

    /** The client id, if it is one a device may be registered under; a 400 otherwise. */
    private static String requireValid(String clientId) {
        String problem = ClientIdPolicy.problem(clientId);
        if (problem != null) {
            throw InvalidRequestException.badRequest("invalid_client_id", problem);
        }
        return clientId;
    }

    private static Answer savedAnswer(DeviceStore.Saved saved) {
        DeviceView view = DeviceView.of(saved.device());
        // A relative Location (RFC 9110 allows it): resolving it against the base URI would need the request
        // scope, which is gone on the worker thread that finishes the write. Client ids need no escaping.
        Response.ResponseBuilder builder = saved.created()
                ? Response.status(Response.Status.CREATED).header(HttpHeaders.LOCATION, "/v1/devices/" + view.clientId())
                        .entity(view)
                : Response.ok(view);
        return ok(builder, saved.created() ? "created" : "replaced");
    }

    private static Answer ok(Response.ResponseBuilder builder, String reason) {
        return new Answer(builder.type(MediaType.APPLICATION_JSON_TYPE).build(), RESULT_OK, reason);
    }

    private static Answer notFound() {
        return new Answer(Response.status(Response.Status.NOT_FOUND).type(MediaType.APPLICATION_JSON_TYPE)
                .entity(new ErrorBody("not_found", "no device is registered under this client id")).build(),
                ErrorResponses.RESULT_REJECTED, "not_found");
    }
}
