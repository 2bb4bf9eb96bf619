package io.deviceidentity.testsupport;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

/**
 * Opens every connection of a pool before a test holds them all. Agroal opens connections one at a time, and a
 * caller that waits longer than the acquisition timeout fails: on a busy machine a burst against a cold pool then
 * meets refusals the test is not about.
 */
public final class WarmPool {

    private WarmPool() {
    }

    /** Borrows {@code size} connections at once (the pool opens them), then returns them all. */
    public static void open(DataSource pool, int size) throws SQLException {
        List<Connection> held = new ArrayList<>();
        try {
            while (held.size() < size) {
                held.add(pool.getConnection());
            }
        } finally {
            for (Connection connection : held) {
                connection.close();
            }
        }
    }
}
