package io.deviceidentity.overload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import org.eclipse.microprofile.faulttolerance.exceptions.CircuitBreakerOpenException;
import org.eclipse.microprofile.faulttolerance.exceptions.TimeoutException;
import org.junit.jupiter.api.Test;

import io.deviceidentity.testsupport.Markdown;

/**
 * docs/api.md's "503 reasons" is the one list of the reasons a 503 carries, and other pages link to it: it has a row
 * for every {@link UnavailableReason} and no other, and each cause the code classifies is written in the row of the
 * reason the code gives it.
 */
class UnavailableReasonsTableTest {

    private static final Path API = Path.of(System.getProperty("repo.root", "..")).toAbsolutePath().normalize()
            .resolve("docs/api.md");

    @Test
    void theTableHasOneRowForEveryReasonTheCodeAnswers() throws IOException {
        assertEquals(Arrays.stream(UnavailableReason.values()).map(UnavailableReason::label).toList(),
                List.copyOf(rows().keySet()), "docs/api.md, \"## 503 reasons\": one row per UnavailableReason, in order");
    }

    @Test
    void eachClassifiedCauseIsInTheRowOfTheReasonTheCodeGivesIt() throws IOException {
        Map<String, String> rows = rows();
        assertCause(rows, reasonOfAnAcquisitionTimeout(), "`quarkus.datasource.jdbc.acquisition-timeout`");
        assertCause(rows, BackendFailures.classify(new TimeoutException("fired")), "`@Timeout`");
        assertCause(rows, BackendFailures.classify(new CircuitBreakerOpenException("open")), "while it is open");
        assertCause(rows, BackendFailures.classify(new SQLException("connection refused", "08001")), "SQLSTATE class 08");
        assertCause(rows, BackendFailures.classify(new SQLException("no more connections allowed (max_client_conn)", "08P01")),
                "`max_client_conn`");
        assertCause(rows, ServiceUnavailableException.deadline(), "deadline");
    }

    private static void assertCause(Map<String, String> rows, RuntimeException answered, String cause) {
        assertTrue(answered instanceof ServiceUnavailableException, "not a 503: " + answered);
        String reason = ((ServiceUnavailableException) answered).reason().label();
        assertTrue(rows.get(reason).contains(cause),
                () -> "docs/api.md's row for `" + reason + "` should name " + cause + ": " + rows.get(reason));
    }

    /** The table's rows, reason to the rest of the row, in the page's order; the header row is skipped. */
    private static Map<String, String> rows() throws IOException {
        Map<String, String> rows = new LinkedHashMap<>();
        for (Markdown.Line line : Markdown.tableRows(Markdown.section(Files.readString(API), "## 503 reasons"))) {
            List<String> cells = Markdown.cells(line.text());
            if (cells.get(0).equals("reason")) {
                continue;
            }
            String reason = Markdown.codeSpan(cells.get(0))
                    .orElseThrow(() -> new AssertionError("docs/api.md:" + line.number() + ": the reason must be one code span"));
            assertEquals(null, rows.put(reason, String.join(" | ", cells.subList(1, cells.size()))),
                    "docs/api.md:" + line.number() + ": `" + reason + "` is listed twice");
        }
        return rows;
    }

    /** What the service answers when Agroal's acquisition timeout fires, taken from the code itself. */
    private static RuntimeException reasonOfAnAcquisitionTimeout() {
        // Agroal's own message (io.agroal.pool.ConnectionPool: "Sorry, acquisition timeout!").
        DataSource timingOut = (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    throw new SQLException("Sorry, acquisition timeout!");
                });
        try {
            PooledConnections.take(timingOut);
        } catch (ServiceUnavailableException refused) {
            return refused;
        } catch (SQLException notClassified) {
            throw new AssertionError("an acquisition timeout is not classified: " + notClassified);
        }
        throw new AssertionError("no failure");
    }
}
