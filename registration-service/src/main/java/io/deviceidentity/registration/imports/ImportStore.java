package io.deviceidentity.registration.imports;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.agroal.api.AgroalDataSource;
import io.deviceidentity.credentials.CredentialRows;
import io.deviceidentity.credentials.legacy.PasswordScheme;
import io.deviceidentity.overload.DatabaseGuard;
import io.deviceidentity.overload.DatabaseGuardConfig;
import io.deviceidentity.overload.PooledConnections;
import io.deviceidentity.registration.passwords.LegacyHashes;
import io.deviceidentity.registration.passwords.WeakHashes;
import io.deviceidentity.registration.kicks.KickOutbox;
import io.deviceidentity.registration.kicks.KickWorker;

/**
 * Writes one import batch as one statement on one pooled connection (through PgBouncer, transaction pooling): the
 * rows travel as five arrays that {@code unnest} turns back into rows, so a batch of any size is a single statement,
 * run by PostgreSQL as its own transaction (autocommit), with no session state and no named prepared statement
 * (the driver's {@code prepareThreshold=0}, as for every other statement here). A batch commits or fails whole; the
 * next one starts only after it has.
 */
@ApplicationScoped
public class ImportStore {

    /** One import batch's circuit breaker and timeout ({@link DatabaseGuard}), under the name operators see. */
    static final String BREAKER = "import-store-write";

    private static final String INSERT = "INSERT INTO device_credentials"
            + " (client_id, username, password_hash, password_scheme, status, superuser, acl)"
            + " SELECT client_id, username, password_hash, password_scheme, 'active', superuser, acl::jsonb"
            + " FROM unnest(?::varchar[], ?::varchar[], ?::varchar[], ?::varchar[], ?::boolean[], ?::text[])"
            + " AS batch(client_id, username, password_hash, password_scheme, superuser, acl)";

    /** Existing devices are left exactly as they are: re-running an import changes nothing. */
    private static final String SKIP_EXISTING = INSERT + " ON CONFLICT (client_id) DO NOTHING"
            + " RETURNING true, substr(password_hash, 5, 2), password_scheme";

    /**
     * Existing active devices whose stored fields differ from the line's take the line's (and lose their fast-path
     * verifier, as on PUT); identical ones are not touched, so a re-run still writes nothing. A revoked device is
     * never re-activated by an import: revocation in this service wins over the old system's copy.
     */
    private static final String REPLACE_EXISTING = INSERT + " ON CONFLICT (client_id) DO UPDATE SET"
            + " username = EXCLUDED.username, password_hash = EXCLUDED.password_hash,"
            + " password_scheme = EXCLUDED.password_scheme, superuser = EXCLUDED.superuser,"
            + " acl = EXCLUDED.acl, verifier_key_id = NULL, verifier = NULL, updated_at = now()"
            + " WHERE device_credentials.status = 'active' AND (device_credentials.username,"
            + " device_credentials.password_hash, device_credentials.password_scheme, device_credentials.superuser,"
            + " device_credentials.acl) IS DISTINCT FROM (EXCLUDED.username, EXCLUDED.password_hash,"
            + " EXCLUDED.password_scheme, EXCLUDED.superuser, EXCLUDED.acl)"
            + " RETURNING (xmax = 0) AS inserted, substr(password_hash, 5, 2) AS cost, password_scheme, client_id";

    /**
     * The same replacing import, and in the same statement a kick of every replaced device's live session (the
     * kick outbox, as for PUT: a session keeps what it was given at login).
     */
    private static final String REPLACE_EXISTING_AND_KICK = "WITH written AS (" + REPLACE_EXISTING + "),"
            + KickOutbox.recordKicks("written", KickOutbox.Reason.REKEYED, "NOT inserted")
            + " SELECT inserted, cost, password_scheme FROM written";

    private final AgroalDataSource dataSource;
    private final CredentialRows rows;
    private final WeakHashes weakHashes;
    private final KickWorker kicks;
    private final LegacyHashes legacyHashes;
    private final DatabaseGuard guard;

    public ImportStore(AgroalDataSource dataSource, ObjectMapper json, WeakHashes weakHashes, KickWorker kicks,
            LegacyHashes legacyHashes, DatabaseGuardConfig guards) {
        this.guard = DatabaseGuard.of(guards, BREAKER, ImportStore.class, "write");
        this.legacyHashes = legacyHashes;
        this.dataSource = dataSource;
        this.rows = new CredentialRows(json);
        this.weakHashes = weakHashes;
        this.kicks = kicks;
    }

    /**
     * What one batch did: every row is exactly one of imported, replaced, skipped; {@code weak} of the imported and
     * replaced ones have a bcrypt hash below the configured cost ({@link WeakHashes}) or a weak legacy scheme.
     */
    public record Written(int imported, int replaced, int skipped, int weak) {
    }

    /** Rows of one batch must have distinct client ids (one statement cannot update a row twice). */
    public Written write(List<ImportRow> batch, boolean replaceExisting) throws SQLException {
        return guard.call(() -> writeBatch(batch, replaceExisting));
    }

    private Written writeBatch(List<ImportRow> batch, boolean replaceExisting) throws SQLException {
        int size = batch.size();
        String[] clientIds = new String[size];
        String[] usernames = new String[size];
        String[] hashes = new String[size];
        String[] schemes = new String[size];
        Boolean[] superusers = new Boolean[size];
        String[] acls = new String[size];
        for (int i = 0; i < size; i++) {
            ImportRow row = batch.get(i);
            clientIds[i] = row.clientId();
            usernames[i] = row.device().username();
            hashes[i] = row.device().passwordHash();
            schemes[i] = row.scheme().column();
            superusers[i] = row.device().superuser();
            acls[i] = rows.aclColumn(row.device().acl());
        }
        try (Connection connection = PooledConnections.take(dataSource);
                PreparedStatement statement = connection.prepareStatement(
                        !replaceExisting ? SKIP_EXISTING
                                : kicks.enabled() ? REPLACE_EXISTING_AND_KICK : REPLACE_EXISTING)) {
            Array[] arrays = {connection.createArrayOf("varchar", clientIds),
                    connection.createArrayOf("varchar", usernames), connection.createArrayOf("varchar", hashes),
                    connection.createArrayOf("varchar", schemes),
                    connection.createArrayOf("bool", superusers), connection.createArrayOf("text", acls)};
            for (int i = 0; i < arrays.length; i++) {
                statement.setArray(i + 1, arrays[i]);
            }
            int imported = 0;
            int replaced = 0;
            int weak = 0;
            try (ResultSet result = statement.executeQuery()) {
                while (result.next()) {
                    if (result.getBoolean(1)) {
                        imported++;
                    } else {
                        replaced++;
                    }
                    PasswordScheme scheme = PasswordScheme.fromStoredColumn(result.getString(3));
                    if (scheme == PasswordScheme.BCRYPT) {
                        if (Integer.parseInt(result.getString(2)) < weakHashes.cost()) {
                            weak++;
                        }
                    } else {
                        legacyHashes.written(scheme);
                        if (scheme.weak()) {
                            weak++;
                        }
                    }
                }
            }
            if (replaced > 0 && replaceExisting && kicks.enabled()) {
                kicks.nudge();
            }
            return new Written(imported, replaced, size - imported - replaced, weak);
        }
    }
}
