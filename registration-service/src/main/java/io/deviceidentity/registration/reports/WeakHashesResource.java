package io.deviceidentity.registration.reports;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import io.deviceidentity.credentials.ClientIdPolicy;
import io.deviceidentity.http.Answer;
import io.deviceidentity.http.InvalidRequestException;
import io.deviceidentity.http.RequestAnswerer;
import io.deviceidentity.metrics.MetricNames;
import io.deviceidentity.overload.DatabaseWork;
import io.deviceidentity.overload.Lane;
import io.deviceidentity.registration.passwords.WeakHashes;
import io.deviceidentity.registration.tokens.RequiresScope;
import io.deviceidentity.registration.tokens.Scope;
import io.smallrye.common.annotation.NonBlocking;
import io.vertx.ext.web.RoutingContext;

/**
 * {@code GET /v1/device-reports/weak-hashes}: the active devices whose stored bcrypt hash is cheaper than the one this
 * service makes ({@code identity.registration.bcrypt-cost}), typically imported from an older store
 * (docs/migration.md), so that their passwords can be rotated: a {@code PUT} with a new password re-hashes at the
 * configured cost and the device leaves the report. The first page also counts the active devices by password scheme
 * ({@code schemes}: how much of an imported fleet is still on a legacy scheme, docs/migration.md). Paginated
 * ({@code limit} 1..{@value #MAX_LIMIT}, default
 * {@value #DEFAULT_LIMIT}; {@code after} = the previous page's {@code next}); needs the {@code read} scope.
 *
 * <p>Not under {@code /v1/devices/}: every name there is a valid client id.
 */
@Path(WeakHashesResource.PATH)
@Produces(MediaType.APPLICATION_JSON)
public class WeakHashesResource {

    public static final String PATH = "/v1/device-reports/weak-hashes";
    public static final int DEFAULT_LIMIT = 100;
    public static final int MIN_LIMIT = 1;
    public static final int MAX_LIMIT = 1000;

    private final WeakHashReport report;
    private final WeakHashes weakHashes;
    private final Lane database;
    private final RequestAnswerer answerer;

    public WeakHashesResource(WeakHashReport report, WeakHashes weakHashes, @DatabaseWork Lane database,
            RequestAnswerer answerer) {
        this.report = report;
        this.weakHashes = weakHashes;
        this.database = database;
        this.answerer = answerer;
    }

    /** Where a page starts: after this cost (two digits) and client id; both empty for the first page. */
    record Position(String cost, String clientId) {
    }

    /** A validated request: the page size and where it starts. */
    record PageRequest(int limit, Position after) {
    }

    @GET
    @NonBlocking
    @RequiresScope(Scope.READ)
    public CompletionStage<Response> list(@QueryParam("limit") String limit, @QueryParam("after") String after,
            @Context RoutingContext context) {
        return answerer.answer("registration.weak_hashes", MetricNames.REGISTRATION_OUTCOMES, context,
                () -> new PageRequest(limit(limit), position(after)), request -> null,
                (request, deadline) -> {
                    String cost = weakHashes.costColumnValue();
                    Position start = request.after();
                    boolean first = start.clientId().isEmpty();
                    // One row more than asked tells whether a next page exists, without a second query.
                    return database.run(deadline, () -> new Read(
                            report.page(cost, start.cost(), start.clientId(), request.limit() + 1),
                            first ? report.schemes() : null))
                            .thenApply(read -> answer(read.rows(), request.limit(), read.schemes()));
                });
    }

    /** What one page reads: its rows, and on the first page the count of devices by scheme. */
    private record Read(List<WeakHashPage.WeakHash> rows, Map<String, Long> schemes) {
    }

    private Answer answer(List<WeakHashPage.WeakHash> rows, int size, Map<String, Long> schemes) {
        List<WeakHashPage.WeakHash> devices = rows.size() > size ? rows.subList(0, size) : rows;
        String next = rows.size() > size ? cursor(devices.get(devices.size() - 1)) : null;
        return new Answer(Response.ok(new WeakHashPage(weakHashes.cost(), List.copyOf(devices), next, schemes))
                .type(MediaType.APPLICATION_JSON_TYPE).build(), "ok", devices.isEmpty() ? "empty" : "listed");
    }

    static int limit(String limit) {
        if (limit == null) {
            return DEFAULT_LIMIT;
        }
        try {
            int value = Integer.parseInt(limit);
            if (value >= MIN_LIMIT && value <= MAX_LIMIT) {
                return value;
            }
        } catch (NumberFormatException notANumber) {
            // answered below
        }
        throw InvalidRequestException.badRequest("invalid_field",
                "query parameter 'limit' must be a whole number from " + MIN_LIMIT + " to " + MAX_LIMIT);
    }

    /** The cursor: base64url of the last row's two cost digits and client id, opaque to callers. */
    static String cursor(WeakHashPage.WeakHash last) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(
                (String.format("%02d", last.cost()) + last.clientId()).getBytes(StandardCharsets.UTF_8));
    }

    static Position position(String after) {
        if (after == null || after.isEmpty()) {
            return new Position("", "");
        }
        try {
            String decoded = new String(Base64.getUrlDecoder().decode(after), StandardCharsets.UTF_8);
            if (decoded.length() > 2 && Character.isDigit(decoded.charAt(0)) && Character.isDigit(decoded.charAt(1))
                    && ClientIdPolicy.isValid(decoded.substring(2))) {
                return new Position(decoded.substring(0, 2), decoded.substring(2));
            }
        } catch (IllegalArgumentException notBase64) {
            // answered below
        }
        throw InvalidRequestException.badRequest("invalid_field",
                "query parameter 'after' must be the 'next' of a previous page");
    }
}
