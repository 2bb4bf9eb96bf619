package io.deviceidentity.registration.api;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.deviceidentity.http.ErrorBody;
import io.deviceidentity.registration.devices.DeviceView;
import io.deviceidentity.registration.imports.ImportResource;
import io.deviceidentity.registration.reports.WeakHashPage;
import io.deviceidentity.registration.reports.WeakHashesResource;

/**
 * Every status each operation of the API can answer, with what it means and the body it carries: the one list that
 * the OpenAPI document's responses are made from ({@link ApiDocumentation}), so the document cannot leave one out.
 * An operation added to a resource without an entry here fails {@code OpenApiDocumentTest}, which finds the
 * operations by reflection; a status a resource starts to answer belongs here first.
 *
 * <p>Where the statuses come from: the resources' own answers (201/200/204/404, the import's 200 and 429),
 * {@code BearerTokenFilter} (401, and 403 for a token without the method's scope; a resource's own 403 for the
 * scopes that depend on the body or query), {@code ErrorResponses} (400 for bad input, 503 overload / deadline /
 * backend_unavailable with {@code Retry-After}, 500 for a defect), Quarkus's body limit (413) and RESTEasy's media
 * type check (415, which {@code ErrorResponses} gives a JSON body).
 */
public final class ApiAnswers {

    /** One answer: status, meaning, the body's media type and shape ({@code body} null: no body). */
    public record Answer(int status, String description, String mediaType, Class<?> body) {
    }

    public static final String JSON = "application/json";

    public static final String PUT_DEVICE = "PUT /v1/devices/{clientId}";
    public static final String GET_DEVICE = "GET /v1/devices/{clientId}";
    public static final String DELETE_DEVICE = "DELETE /v1/devices/{clientId}";
    public static final String IMPORT_DEVICES = "POST " + ImportResource.PATH;
    public static final String WEAK_HASHES = "GET " + WeakHashesResource.PATH;

    private static final Answer BAD_REQUEST = error(400, "bad input (reason names it: invalid_client_id,"
            + " invalid_password, invalid_password_hash, conflicting_fields, missing_field, invalid_field, unknown_field,"
            + " invalid_acl, duplicate_field, malformed_json); nothing was written");
    /** GET and DELETE read no body: the path's client id is all they can refuse. */
    private static final Answer BAD_CLIENT_ID = error(400, "the client id in the path is not one a device may be"
            + " registered under (reason invalid_client_id); nothing was read or written");
    private static final Answer UNAUTHORIZED = error(401,
            "no accepted 'Authorization: Bearer <token>' header (reason unauthorized)");
    private static final Answer FORBIDDEN = error(403, "the token lacks a scope this operation needs (reason"
            + " forbidden)");
    private static final Answer FORBIDDEN_READ = forbidden("read");
    private static final Answer FORBIDDEN_WRITE = forbidden("write");
    private static final Answer TOO_LARGE = error(413, "the body is over the size limit");
    private static final Answer UNAVAILABLE = error(503, "not now, retry after Retry-After seconds: overload,"
            + " deadline or backend_unavailable; nothing was written (unless the connection broke between the commit"
            + " and its reply: a retried PUT makes that harmless)");
    private static final Answer DEFECT = error(500, "a defect (reason internal_error); the service's log has it");

    public static final Map<String, List<Answer>> OPERATIONS = Map.of(
            PUT_DEVICE, with(
                    new Answer(201, "created; Location names the device", JSON, DeviceView.class),
                    new Answer(200, "replaced (a revoked device is re-activated)", JSON, DeviceView.class),
                    BAD_REQUEST, error(403, "the token lacks the scope write, or superuser for a body with"
                            + " \"superuser\": true or an allow rule beyond devices/<client id>/# (reason forbidden);"
                            + " nothing was written"), TOO_LARGE),
            GET_DEVICE, with(
                    new Answer(200, "the device's metadata (never its hash), active or revoked", JSON,
                            DeviceView.class),
                    BAD_CLIENT_ID, FORBIDDEN_READ,
                    error(404, "no device was ever registered under this client id (reason not_found)")),
            DELETE_DEVICE, with(
                    new Answer(204, "revoked, also when it was revoked already", null, null),
                    BAD_CLIENT_ID, FORBIDDEN_WRITE, error(404, "no device was ever registered under this client id (reason not_found)")),
            IMPORT_DEVICES, with(
                    new Answer(200, "the import's report, JSON lines written as it goes: a rejected line each,"
                            + " progress after every committed batch, a summary last",
                            ImportResource.NDJSON, ImportReportLine.class),
                    error(400, "query parameter 'existing' is neither skip nor replace, or '"
                            + ImportResource.ALLOW_WEAK_SCHEMES + "' neither false nor true (reason invalid_field)"),
                    error(403, "the token lacks the scope write, or import-replace for existing=replace (reason"
                            + " forbidden); nothing was read. A line storing a superuser, or an allow rule beyond the device's own topics, without the scope superuser"
                            + " is one rejected line of the report (reason forbidden), not a 403"),
                    TOO_LARGE,
                    error(415, "the body is not application/x-ndjson (reason unsupported_media_type)"),
                    error(429, "another import is running (reason import_in_progress); retry after Retry-After")),
            WEAK_HASHES, with(
                    new Answer(200, "one page of active devices whose bcrypt cost is below the service's, weakest"
                            + " first; 'next' is the 'after' of the next page, null on the last", JSON,
                            WeakHashPage.class),
                    error(400, "'limit' is not 1..1000 or 'after' is not a 'next' of this report (reason"
                            + " invalid_field)"),
                    FORBIDDEN_READ));

    private ApiAnswers() {
    }

    private static Answer forbidden(String scope) {
        return error(403, "the token lacks the scope " + scope + " (reason forbidden)");
    }

    private static Answer error(int status, String description) {
        return new Answer(status, description, JSON, ErrorBody.class);
    }

    /** The operation's own answers, then those every /v1 operation can give. */
    private static List<Answer> with(Answer... own) {
        List<Answer> answers = new ArrayList<>(List.of(own));
        for (Answer common : List.of(UNAUTHORIZED, FORBIDDEN, UNAVAILABLE, DEFECT)) {
            if (answers.stream().noneMatch(answer -> answer.status() == common.status())) {
                answers.add(common);
            }
        }
        return List.copyOf(answers);
    }
}
