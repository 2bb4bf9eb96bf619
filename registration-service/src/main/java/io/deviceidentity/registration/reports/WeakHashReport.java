package io.deviceidentity.registration.reports;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import jakarta.enterprise.context.ApplicationScoped;

import io.agroal.api.AgroalDataSource;
import io.deviceidentity.overload.DatabaseGuard;
import io.deviceidentity.overload.DatabaseGuardConfig;
import io.deviceidentity.overload.PooledConnections;

/**
 * Reads one page of weak hashes: one statement on one pooled connection, an index range scan on
 * {@code device_credentials_hash_cost} (V5: the cost's two digits, then the client id, active rows only), so a page
 * costs the same whether one row in a million is weak or all of them are. Keyset pagination: the page after
 * {@code (cost, client id)} starts strictly after that pair, so rows written between two pages are neither skipped
 * twice nor repeated, and a deep page costs what the first one does.
 */
@ApplicationScoped
public class WeakHashReport {

    /** A page of the report's circuit breaker and timeout ({@link DatabaseGuard}), under the name operators see. */
    static final String PAGE_BREAKER = "weak-hash-report";

    /** The count by scheme's circuit breaker and timeout ({@link DatabaseGuard}), under the name operators see. */
    static final String SCHEMES_BREAKER = "weak-hash-report-schemes";

    private static final String PAGE = "SELECT client_id, substr(password_hash, 5, 2) FROM device_credentials"
            + " WHERE status = 'active' AND substr(password_hash, 5, 2) < ?"
            + " AND (substr(password_hash, 5, 2), client_id) > (?, ?)"
            + " ORDER BY substr(password_hash, 5, 2), client_id LIMIT ?";

    /**
     * Active devices by scheme: one pass over the table (no index can count every row), so only the report's first
     * page asks for it; about a second per ten million rows.
     */
    private static final String SCHEMES = "SELECT password_scheme, count(*) FROM device_credentials"
            + " WHERE status = 'active' GROUP BY password_scheme";

    private final AgroalDataSource dataSource;
    private final DatabaseGuard pageGuard;
    private final DatabaseGuard schemesGuard;

    public WeakHashReport(AgroalDataSource dataSource, DatabaseGuardConfig guards) {
        this.dataSource = dataSource;
        this.pageGuard = DatabaseGuard.of(guards, PAGE_BREAKER, WeakHashReport.class, "page");
        this.schemesGuard = DatabaseGuard.of(guards, SCHEMES_BREAKER, WeakHashReport.class, "schemes");
    }

    /**
     * Up to {@code limit} devices with a cost below {@code cost} (two digits, as stored) after the position
     * ({@code afterCost}, {@code afterClientId}); {@code ""} and {@code ""} start at the beginning.
     */
    public List<WeakHashPage.WeakHash> page(String cost, String afterCost, String afterClientId, int limit)
            throws SQLException {
        return pageGuard.call(() -> readPage(cost, afterCost, afterClientId, limit));
    }

    private List<WeakHashPage.WeakHash> readPage(String cost, String afterCost, String afterClientId, int limit)
            throws SQLException {
        try (Connection connection = PooledConnections.take(dataSource);
                PreparedStatement statement = connection.prepareStatement(PAGE)) {
            statement.setString(1, cost);
            statement.setString(2, afterCost);
            statement.setString(3, afterClientId);
            statement.setInt(4, limit);
            List<WeakHashPage.WeakHash> page = new ArrayList<>(limit);
            try (ResultSet result = statement.executeQuery()) {
                while (result.next()) {
                    page.add(new WeakHashPage.WeakHash(result.getString(1), costOf(result.getString(2))));
                }
            }
            return page;
        }
    }

    /** How many active devices are on each password scheme (only schemes that have one). */
    public Map<String, Long> schemes() throws SQLException {
        return schemesGuard.call(this::countSchemes);
    }

    private Map<String, Long> countSchemes() throws SQLException {
        try (Connection connection = PooledConnections.take(dataSource);
                PreparedStatement statement = connection.prepareStatement(SCHEMES);
                ResultSet result = statement.executeQuery()) {
            Map<String, Long> counts = new TreeMap<>();
            while (result.next()) {
                counts.put(result.getString(1), result.getLong(2));
            }
            return counts;
        }
    }

    /** Two digits for every hash the service wrote; anything else (a row written by hand) reads as 0. */
    private static int costOf(String digits) {
        return digits.length() == 2 && Character.isDigit(digits.charAt(0)) && Character.isDigit(digits.charAt(1))
                ? Integer.parseInt(digits) : 0;
    }
}
