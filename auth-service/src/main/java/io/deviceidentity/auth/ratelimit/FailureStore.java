package io.deviceidentity.auth.ratelimit;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The SQL of the shared failure counts (table {@code authn_failures}, migration V3): a row per (client id, source,
 * window), and a row per (client id, window) under the source {@value #ANY_SOURCE} for the per-id ceiling.
 */
final class FailureStore {

    static final String ANY_SOURCE = "*";

    /** One counter: whose failures, from where, in which window. */
    record Key(String clientId, String source, long window) {
    }

    private static final String READ = "SELECT source, window_start, failures FROM authn_failures"
            + " WHERE client_id = ? AND window_start IN (?, ?) AND source IN (?, '" + ANY_SOURCE + "')";

    /**
     * Adds a whole batch in one statement and returns each counter's new total (the sum of every replica's
     * failures). The batch has each key once: ON CONFLICT cannot touch one row twice in a statement.
     */
    private static final String ADD = "INSERT INTO authn_failures AS f (client_id, source, window_start, failures)"
            + " SELECT * FROM unnest(?::varchar[], ?::varchar[], ?::bigint[], ?::integer[])"
            + " ON CONFLICT (client_id, window_start, source) DO UPDATE SET failures = f.failures + EXCLUDED.failures"
            + " RETURNING client_id, source, window_start, failures";

    private static final String FORGET = "DELETE FROM authn_failures WHERE window_start < ?";

    private FailureStore() {
    }

    /**
     * The totals of (client id, source) and of the client id, in this window and the one before:
     * {@code [pair, client, pair before, client before]}.
     */
    static int[] read(Connection connection, String clientId, String source, long window) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement(READ)) {
            query.setString(1, clientId);
            query.setLong(2, window);
            query.setLong(3, window - 1);
            query.setString(4, source);
            int[] totals = new int[4];
            try (ResultSet rows = query.executeQuery()) {
                while (rows.next()) {
                    int index = (ANY_SOURCE.equals(rows.getString(1)) ? 1 : 0) + (rows.getLong(2) == window ? 0 : 2);
                    totals[index] = rows.getInt(3);
                }
            }
            return totals;
        }
    }

    static Map<Key, Integer> add(Connection connection, Map<Key, Integer> increments) throws SQLException {
        List<Map.Entry<Key, Integer>> entries = List.copyOf(increments.entrySet());
        String[] ids = new String[entries.size()];
        String[] sources = new String[entries.size()];
        Long[] windows = new Long[entries.size()];
        Integer[] counts = new Integer[entries.size()];
        for (int i = 0; i < entries.size(); i++) {
            Key key = entries.get(i).getKey();
            ids[i] = key.clientId();
            sources[i] = key.source();
            windows[i] = key.window();
            counts[i] = entries.get(i).getValue();
        }
        Map<Key, Integer> totals = new HashMap<>();
        try (PreparedStatement insert = connection.prepareStatement(ADD)) {
            Array[] arrays = {connection.createArrayOf("varchar", ids), connection.createArrayOf("varchar", sources),
                    connection.createArrayOf("bigint", windows), connection.createArrayOf("integer", counts)};
            for (int i = 0; i < arrays.length; i++) {
                insert.setArray(i + 1, arrays[i]);
            }
            try (ResultSet rows = insert.executeQuery()) {
                while (rows.next()) {
                    totals.put(new Key(rows.getString(1), rows.getString(2), rows.getLong(3)), rows.getInt(4));
                }
            }
        }
        return totals;
    }

    /** Deletes the counters of windows before {@code window}: they can no longer refuse anything. */
    static int forgetBefore(Connection connection, long window) throws SQLException {
        try (PreparedStatement delete = connection.prepareStatement(FORGET)) {
            delete.setLong(1, window);
            return delete.executeUpdate();
        }
    }
}
