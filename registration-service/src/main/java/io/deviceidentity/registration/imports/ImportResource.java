package io.deviceidentity.registration.imports;

import java.io.InputStream;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;

import io.deviceidentity.http.Answer;
import io.deviceidentity.http.ErrorBody;
import io.deviceidentity.http.ErrorResponses;
import io.deviceidentity.http.InvalidRequestException;
import io.deviceidentity.metrics.MetricNames;
import io.deviceidentity.metrics.Outcomes;
import io.deviceidentity.overload.Deadline;
import io.deviceidentity.overload.RequestDeadlines;
import io.deviceidentity.registration.RegistrationConfig;
import io.deviceidentity.registration.tokens.Caller;
import io.deviceidentity.registration.tokens.RequiresScope;
import io.deviceidentity.registration.tokens.Scope;
import io.smallrye.common.annotation.Blocking;
import io.vertx.ext.web.RoutingContext;

/**
 * {@code POST /v1/device-imports}: the bulk import of devices whose bcrypt hashes exist already (migrating a fleet
 * from another broker's store without resetting a password; docs/migration.md). The body is JSON lines, one device a
 * line, read as a stream; the answer is {@code 200} with JSON lines written as the import goes ({@link ImportReport}).
 * Refused before anything is read: {@code 401} (no token, {@code BearerTokenFilter}), {@code 403} (a token without
 * {@code write}, or without {@code import-replace} for {@code existing=replace}), {@code 400} for a bad
 * {@code existing} parameter, {@code 415} for another content type, {@code 429 import_in_progress} while
 * {@code identity.registration.import.concurrency} imports run already.
 *
 * <p>Not under {@code /v1/devices/}: {@code import} is a valid client id, and a literal path there would take
 * {@code PUT /v1/devices/import} away from the device of that name.
 *
 * <p>Blocking on a worker thread, on purpose: the import reads its body and waits for each batch in turn for as long
 * as the file takes, which no event loop may do. Only {@code concurrency} such threads are ever taken.
 */
@Path(ImportResource.PATH)
public class ImportResource {

    public static final String PATH = "/v1/device-imports";
    public static final String NDJSON = "application/x-ndjson";
    static final String OPERATION = "registration.import";
    /** The result label of a finished import, as the other operations' successes have it. */
    static final String RESULT_OK = "ok";
    public static final String EXISTING_SKIP = "skip";
    public static final String EXISTING_REPLACE = "replace";
    public static final String ALLOW_WEAK_SCHEMES = "allow_weak_schemes";
    /** Seconds a refused import should wait: imports take minutes, polling every second helps nobody. */
    static final int BUSY_RETRY_AFTER = 30;

    private final DeviceImporter importer;
    private final Outcomes outcomes;
    private final RequestDeadlines deadlines;
    private final Semaphore running;

    public ImportResource(DeviceImporter importer, Outcomes outcomes, RequestDeadlines deadlines,
            RegistrationConfig config) {
        this.importer = importer;
        this.outcomes = outcomes;
        this.deadlines = deadlines;
        this.running = ImportSlots.of(config.imports().concurrency());
    }

    /**
     * @param existing what to do with a line whose device exists already: {@code skip} (default: left as it is, and
     *                 counted as skipped, so re-running a file is harmless) or {@code replace} (an active device
     *                 whose fields differ takes the line's; a revoked device is never re-activated)
     * @param allowWeakSchemes {@code true} to import lines of a weak legacy scheme ({@link #allowWeakSchemes})
     */
    @POST
    @Blocking
    @RequiresScope(Scope.WRITE)
    @Consumes(NDJSON)
    @Produces(NDJSON)
    public Response importDevices(@QueryParam("existing") String existing,
            @QueryParam(ALLOW_WEAK_SCHEMES) String allowWeakSchemes, InputStream body,
            @Context RoutingContext context) {
        Deadline deadline = deadlines.of(context);
        boolean replace;
        boolean allowWeak;
        Caller caller = Caller.of(context);
        try {
            replace = replaceExisting(existing);
            allowWeak = allowWeakSchemes(allowWeakSchemes);
            if (replace) {
                caller.require(Scope.IMPORT_REPLACE, "import with existing=replace");
            }
        } catch (InvalidRequestException invalid) {
            Answer refused = ErrorResponses.answerFor(invalid);
            outcomes.record(MetricNames.REGISTRATION_OUTCOMES, OPERATION, null, deadline, refused);
            return refused.response();
        }
        if (!running.tryAcquire()) {
            outcomes.record(MetricNames.REGISTRATION_OUTCOMES, OPERATION, null, deadline, 429,
                    ErrorResponses.RESULT_REJECTED, "import_in_progress");
            return Response.status(429).header("Retry-After", BUSY_RETRY_AFTER).type(MediaType.APPLICATION_JSON_TYPE)
                    .entity(new ErrorBody("import_in_progress",
                            "another import is running; retry once it has finished")).build();
        }
        AtomicBoolean released = new AtomicBoolean();
        Runnable release = () -> {
            if (released.compareAndSet(false, true)) {
                running.release();
            }
        };
        // Also when the answer is never written (the caller left before it started).
        context.addEndHandler(ended -> release.run());
        StreamingOutput answer = out -> {
            try {
                DeviceImporter.Ended ended = importer.run(body, out, replace, allowWeak, caller);
                outcomes.record(MetricNames.REGISTRATION_OUTCOMES, OPERATION, null, deadline, 200,
                        ended.complete() ? RESULT_OK : ErrorResponses.RESULT_UNAVAILABLE, ended.reason());
            } finally {
                release.run();
            }
        };
        return Response.ok(answer, NDJSON).build();
    }

    /**
     * {@code allow_weak_schemes}: {@code false} (default) rejects every line whose legacy scheme is weak (plain,
     * md5, unsalted sha; docs/migration.md), {@code true} imports them (counted by scheme in
     * {@code identity_registration_legacy_hashes_written_total}). A query parameter rather than a line field, so
     * that the decision is taken once for a whole file, visibly in the request, and cannot hide in one line.
     */
    static boolean allowWeakSchemes(String value) {
        if (value == null || value.equals("false")) {
            return false;
        }
        if (value.equals("true")) {
            return true;
        }
        throw InvalidRequestException.badRequest("invalid_field",
                "query parameter '" + ALLOW_WEAK_SCHEMES + "' must be false (the default) or true");
    }

    private static boolean replaceExisting(String existing) {
        if (existing == null || existing.equals(EXISTING_SKIP)) {
            return false;
        }
        if (existing.equals(EXISTING_REPLACE)) {
            return true;
        }
        throw InvalidRequestException.badRequest("invalid_field",
                "query parameter 'existing' must be skip (the default) or replace");
    }
}
