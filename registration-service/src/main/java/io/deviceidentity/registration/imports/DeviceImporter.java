package io.deviceidentity.registration.imports;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.deviceidentity.http.InvalidRequestException;
import io.deviceidentity.metrics.MetricNames;
import io.deviceidentity.overload.BackendFailures;
import io.deviceidentity.overload.DatabaseWork;
import io.deviceidentity.overload.Lane;
import io.deviceidentity.overload.ServiceUnavailableException;
import io.deviceidentity.overload.UnavailableReason;
import io.deviceidentity.registration.RegistrationConfig;
import io.deviceidentity.registration.devices.GrantedScopes;
import io.deviceidentity.registration.passwords.WeakHashes;
import io.deviceidentity.registration.tokens.Caller;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Runs one import on the calling (worker) thread: reads the body line by line, rejects bad lines on the spot, and
 * writes the good ones in batches of {@code identity.registration.import.batch-size}, each batch one statement and
 * one transaction ({@link ImportStore}), committed before the next line is read. Reading stops while a batch is
 * written, so the caller's upload waits for the database (TCP back-pressure) and memory holds one batch.
 *
 * <p>Each batch runs on the database {@link Lane} as a bulk step, admitted only while it leaves a database thread
 * free for PUT, GET and DELETE; when none is, the importer waits (backing off up to {@link #MAX_BACKOFF_MILLIS}) and
 * tries again, for at most {@link #MAX_WAIT_SECONDS} per batch, then stops with {@code overload}. A database failure
 * stops the import at once: the batches before it are committed and a re-run skips them.
 */
@ApplicationScoped
public class DeviceImporter {

    private static final Logger LOG = Logger.getLogger(DeviceImporter.class);

    static final int MAX_BATCH_SIZE = 10_000;
    private static final long MAX_BACKOFF_MILLIS = 200;
    private static final long MAX_WAIT_SECONDS = 30;

    private final ObjectMapper json;
    private final Lane database;
    private final ImportStore store;
    private final int batchSize;
    private final int maxLineBytes;
    private final Counter importedRows;
    private final Counter replacedRows;
    private final Counter skippedRows;
    private final Counter rejectedRows;
    private final WeakHashes weakHashes;

    public DeviceImporter(ObjectMapper json, @DatabaseWork Lane database, ImportStore store, RegistrationConfig config,
            MeterRegistry registry, WeakHashes weakHashes) {
        this.json = json;
        this.weakHashes = weakHashes;
        this.database = database;
        this.store = store;
        this.batchSize = config.imports().batchSize();
        if (batchSize < 1 || batchSize > MAX_BATCH_SIZE) {
            throw new IllegalArgumentException("identity.registration.import.batch-size must be 1.." + MAX_BATCH_SIZE);
        }
        this.maxLineBytes = (int) Math.min(Integer.MAX_VALUE - 16, config.imports().maxLineSize().asLongValue());
        this.importedRows = rows(registry, "imported");
        this.replacedRows = rows(registry, "replaced");
        this.skippedRows = rows(registry, "skipped");
        this.rejectedRows = rows(registry, "rejected");
    }

    private static Counter rows(MeterRegistry registry, String result) {
        return Counter.builder(MetricNames.REGISTRATION_IMPORT_ROWS).tag(MetricNames.TAG_RESULT, result)
                .description("rows of bulk imports, by what became of them").register(registry);
    }

    /** How an import ended, for the outcome log line. */
    public record Ended(boolean complete, String reason, ImportReport.ImportCounts counts) {
    }

    /**
     * @param allowWeakSchemes whether lines of a weak legacy scheme (plain, md5, unsalted sha) are imported (the
     *                         import's {@code allow_weak_schemes=true}); otherwise they are rejected, line by line
     * @param caller who imports: a line that stores a superuser, or a rule beyond the device's own topics, is
     *               rejected ({@code forbidden}) unless the token has the {@code superuser} scope, like such a PUT
     *               ({@link GrantedScopes})
     */
    public Ended run(InputStream body, OutputStream out, boolean replaceExisting, boolean allowWeakSchemes,
            Caller caller) throws IOException {
        ImportReport.ImportCounts counts = new ImportReport.ImportCounts();
        ImportReport report = new ImportReport(json, out, counts);
        Lines lines = new Lines(body, maxLineBytes);
        List<ImportRow> batch = new ArrayList<>(batchSize);
        Map<String, Integer> linesOfBatch = new HashMap<>();
        int lastLine = 0;
        int committedThrough = 0;
        try {
            for (Lines.Line line = lines.next(); line != null; line = lines.next()) {
                lastLine = line.number();
                if (line.blank()) {
                    continue;
                }
                ImportRow row = parse(line, report, counts, allowWeakSchemes);
                if (row == null) {
                    continue;
                }
                InvalidRequestException refused = GrantedScopes.refusal(caller, row.clientId(), row.device(), "import");
                if (refused != null) {
                    reject(report, counts, row.line(), refused.reason(), refused.getMessage());
                    continue;
                }
                Integer first = linesOfBatch.putIfAbsent(row.clientId(), row.line());
                if (first != null) {
                    // One statement cannot write a row twice; a later repeat (another batch) finds the row and is
                    // skipped, or replaces it.
                    reject(report, counts, row.line(), "duplicate_client_id",
                            "client id '" + row.clientId() + "' is on line " + first + " already");
                    continue;
                }
                batch.add(row);
                if (batch.size() == batchSize) {
                    committedThrough = write(batch, replaceExisting, counts, lastLine);
                    report.progress(committedThrough);
                    batch.clear();
                    linesOfBatch.clear();
                }
            }
        } catch (IOException unreadable) {
            // The caller went away or the body broke off (or outgrew max-body-size): what is committed stays.
            LOG.debugf(unreadable, "import body unreadable after line %d", lastLine);
            return stopped(report, counts, committedThrough, "body_unreadable",
                    "the request body could not be read to its end (closed early, or over the import's size limit)");
        } catch (BatchFailed failed) {
            return stopped(report, counts, committedThrough, failed.reason, failed.getMessage());
        }
        try {
            if (!batch.isEmpty()) {
                write(batch, replaceExisting, counts, lastLine);
            }
        } catch (BatchFailed failed) {
            return stopped(report, counts, committedThrough, failed.reason, failed.getMessage());
        }
        report.complete(lastLine);
        return new Ended(true, "complete", counts);
    }

    private ImportRow parse(Lines.Line line, ImportReport report, ImportReport.ImportCounts counts,
            boolean allowWeakSchemes) throws IOException {
        if (line.tooLong()) {
            reject(report, counts, line.number(), "line_too_long",
                    "the line is longer than " + maxLineBytes + " bytes");
            return null;
        }
        try {
            return ImportLines.parse(json, line.number(), line.bytes(), allowWeakSchemes);
        } catch (InvalidRequestException refused) {
            reject(report, counts, line.number(), refused.reason(), refused.getMessage());
            return null;
        }
    }

    private void reject(ImportReport report, ImportReport.ImportCounts counts, int line, String reason,
            String message) throws IOException {
        counts.rejected++;
        rejectedRows.increment();
        report.rejected(line, reason, message);
    }

    private Ended stopped(ImportReport report, ImportReport.ImportCounts counts, int committedThrough, String reason,
            String message) throws IOException {
        report.stopped(committedThrough, reason, message);
        return new Ended(false, reason, counts);
    }

    /** Writes one batch (waiting for a database thread while requests need them all); returns its last line. */
    private int write(List<ImportRow> batch, boolean replaceExisting, ImportReport.ImportCounts counts, int lastLine)
            throws BatchFailed {
        List<ImportRow> rows = List.copyOf(batch);
        long giveUpAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(MAX_WAIT_SECONDS);
        long backoff = 5;
        while (true) {
            try {
                ImportStore.Written written = database.runBulk(() -> store.write(rows, replaceExisting)).join();
                counts.imported += written.imported();
                counts.replaced += written.replaced();
                counts.skipped += written.skipped();
                counts.weakHashes += written.weak();
                weakHashes.importedWeak(written.weak());
                importedRows.increment(written.imported());
                replacedRows.increment(written.replaced());
                skippedRows.increment(written.skipped());
                return lastLine;
            } catch (CompletionException failure) {
                RuntimeException classified = BackendFailures.classify(failure);
                if (!(classified instanceof ServiceUnavailableException unavailable)) {
                    throw classified;
                }
                if (unavailable.reason() != UnavailableReason.OVERLOAD || System.nanoTime() > giveUpAt) {
                    throw new BatchFailed(unavailable.reason().label(), unavailable.getMessage());
                }
                sleep(backoff);
                backoff = Math.min(MAX_BACKOFF_MILLIS, backoff * 2);
            }
        }
    }

    private static void sleep(long millis) throws BatchFailed {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new BatchFailed("overload", "the service is stopping");
        }
    }

    /** A batch could not be written; the import stops after the batches committed before it. */
    private static final class BatchFailed extends Exception {
        final String reason;

        BatchFailed(String reason, String message) {
            super(message, null, false, false);
            this.reason = reason;
        }
    }
}
