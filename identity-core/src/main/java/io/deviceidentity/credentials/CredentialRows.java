package io.deviceidentity.credentials;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.List;
import java.util.Optional;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.type.CollectionType;

import io.deviceidentity.credentials.legacy.PasswordScheme;

/**
 * Reads device credential rows. One indexed query by primary key, on the connection the caller hands in, so that
 * reads inside a transaction use that transaction's connection and no caller ever holds two.
 */
public final class CredentialRows {

    private static final String COLUMNS = "client_id, username, password_hash, status, superuser, acl::text,"
            + " created_at, updated_at, password_scheme";
    static final String SELECT_BY_CLIENT_ID = "SELECT " + COLUMNS + " FROM device_credentials WHERE client_id = ?";
    /** The same indexed read with the fast path's verifier columns: still one query. */
    static final String SELECT_WITH_VERIFIER_BY_CLIENT_ID = "SELECT " + COLUMNS + ", verifier_key_id, verifier"
            + " FROM device_credentials WHERE client_id = ?";

    private final ObjectMapper json;
    // Built from Class objects rather than an anonymous TypeReference subclass, which needs its generic superclass
    // signature at run time: in a native image that is reflection metadata, and nothing registers that subclass.
    private final CollectionType aclList;

    public CredentialRows(ObjectMapper json) {
        this.json = json;
        this.aclList = json.getTypeFactory().constructCollectionType(List.class, AclRule.class);
    }

    public Optional<DeviceCredential> find(Connection connection, String clientId) throws SQLException {
        return find(connection, clientId, false);
    }

    /** With {@code withVerifier} false the verifier columns are not even selected (fast path off). */
    public Optional<DeviceCredential> find(Connection connection, String clientId, boolean withVerifier)
            throws SQLException {
        String query = withVerifier ? SELECT_WITH_VERIFIER_BY_CLIENT_ID : SELECT_BY_CLIENT_ID;
        try (PreparedStatement statement = connection.prepareStatement(query)) {
            statement.setString(1, clientId);
            try (ResultSet row = statement.executeQuery()) {
                return row.next() ? Optional.of(map(row, withVerifier)) : Optional.empty();
            }
        }
    }

    public String aclColumn(List<AclRule> acl) {
        if (acl == null || acl.isEmpty()) {
            return null;
        }
        try {
            return json.writeValueAsString(acl);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("ACL rules could not be written as JSON", e);
        }
    }

    private DeviceCredential map(ResultSet row, boolean withVerifier) throws SQLException {
        return new DeviceCredential(
                row.getString(1),
                row.getString(2),
                row.getString(3),
                DeviceStatus.fromColumn(row.getString(4)),
                row.getBoolean(5),
                parseAcl(row.getString(6)),
                instant(row.getTimestamp(7)),
                instant(row.getTimestamp(8)),
                withVerifier ? verifier(row.getString(10), row.getBytes(11)) : null,
                PasswordScheme.fromStoredColumn(row.getString(9)));
    }

    private static StoredVerifier verifier(String keyId, byte[] mac) {
        return keyId == null || mac == null ? null : new StoredVerifier(keyId, mac);
    }

    private List<AclRule> parseAcl(String column) throws SQLException {
        if (column == null) {
            return List.of();
        }
        try {
            return List.copyOf(json.<List<AclRule>>readValue(column, aclList));
        } catch (JsonProcessingException e) {
            // Rows are only written through validated rules; an unreadable one is a data defect, not bad input.
            throw new SQLException("stored ACL of a device is not valid JSON", "XX000", e);
        }
    }

    private static java.time.Instant instant(Timestamp timestamp) {
        return timestamp == null ? null : timestamp.toInstant();
    }
}
