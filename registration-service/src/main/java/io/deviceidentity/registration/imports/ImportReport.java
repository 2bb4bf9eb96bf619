package io.deviceidentity.registration.imports;

import java.io.IOException;
import java.io.OutputStream;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The import's answer, one JSON object a line ({@code application/x-ndjson}), written as the import goes:
 * <ul>
 *   <li>{@code {"type":"rejected","line":17,"reason":"invalid_password_hash","message":"..."}} for every line that
 *       is not imported, as soon as it is read (the reasons are PUT's 400 reasons, plus {@code line_too_long} and
 *       {@code duplicate_client_id}; the message never quotes a hash or a password);</li>
 *   <li>{@code {"type":"progress","committed_through_line":5000,"imported":..,"replaced":..,"skipped":..,
 *       "rejected":..,"weak_hashes":..}} after every committed batch: every line up to that one is decided for good
 *       ({@code weak_hashes}: of the imported and replaced rows, those whose bcrypt cost is below the service's, to be
 *       rotated: {@code GET /v1/device-reports/weak-hashes} lists them, and those of a weak legacy scheme);</li>
 *   <li>last, {@code {"type":"summary","complete":true,...}} with the same counts and {@code lines}; or, when the
 *       import stops early, {@code "complete":false} with the {@code reason} and {@code message} (a 503 reason:
 *       {@code backend_unavailable}, {@code overload}; or {@code body_unreadable}). Re-running the same file then
 *       finishes it: the rows committed already are counted as skipped.</li>
 * </ul>
 */
final class ImportReport {

    private final ObjectMapper json;
    private final OutputStream out;
    private final ImportCounts counts;

    ImportReport(ObjectMapper json, OutputStream out, ImportCounts counts) {
        this.json = json;
        this.out = out;
        this.counts = counts;
    }

    void rejected(int line, String reason, String message) throws IOException {
        ObjectNode entry = json.createObjectNode().put("type", "rejected").put("line", line).put("reason", reason)
                .put("message", message);
        write(entry);
    }

    /** After a batch committed; flushed so that the caller sees it now. */
    void progress(int committedThroughLine) throws IOException {
        write(counts(json.createObjectNode().put("type", "progress")
                .put("committed_through_line", committedThroughLine)));
        out.flush();
    }

    void complete(int lines) throws IOException {
        write(counts(json.createObjectNode().put("type", "summary").put("complete", true).put("lines", lines)));
        out.flush();
    }

    void stopped(int committedThroughLine, String reason, String message) throws IOException {
        write(counts(json.createObjectNode().put("type", "summary").put("complete", false).put("reason", reason)
                .put("message", message).put("committed_through_line", committedThroughLine)));
        out.flush();
    }

    private ObjectNode counts(ObjectNode entry) {
        return entry.put("imported", counts.imported).put("replaced", counts.replaced).put("skipped", counts.skipped)
                .put("rejected", counts.rejected).put("weak_hashes", counts.weakHashes);
    }

    private void write(ObjectNode entry) throws IOException {
        out.write(json.writeValueAsBytes(entry));
        out.write('\n');
    }

    /** Running totals of one import. */
    static final class ImportCounts {
        long imported;
        long replaced;
        long skipped;
        long rejected;
        /** Of the imported and replaced rows, those whose hash is below the configured bcrypt cost. */
        long weakHashes;
    }
}
