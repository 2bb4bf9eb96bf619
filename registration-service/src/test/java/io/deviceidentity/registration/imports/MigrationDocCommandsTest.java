package io.deviceidentity.registration.imports;

import static io.deviceidentity.registration.support.Devices.uniquePrefix;
import static io.deviceidentity.testsupport.LegacyHashVectors.ARGON2ID;
import static io.deviceidentity.testsupport.LegacyHashVectors.EMQX_PBKDF2_SHA256_4096;
import static io.deviceidentity.testsupport.LegacyHashVectors.MOSQUITTO_PBKDF2;
import static io.deviceidentity.testsupport.LegacyHashVectors.PASSWORD;
import static io.deviceidentity.testsupport.LegacyHashVectors.SALT;
import static io.deviceidentity.testsupport.LegacyHashVectors.SHA256_PREFIX;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.deviceidentity.credentials.Bcrypt;
import io.deviceidentity.credentials.DeviceCredential;
import io.deviceidentity.credentials.legacy.PasswordScheme;
import io.deviceidentity.credentials.legacy.StoredPasswords;
import io.deviceidentity.registration.support.Database;
import io.deviceidentity.registration.support.Imports;
import io.deviceidentity.testsupport.Markdown;
import io.deviceidentity.testsupport.MosquittoPasswd;
import io.deviceidentity.testsupport.TestDatabase;
import io.quarkus.test.junit.QuarkusTest;

/**
 * The export commands of docs/migration.md, run as a reader pastes them: each {@code bash} block of an export
 * section, unchanged, in bash, with the real {@code psql} against the real PostgreSQL holding an old store's table
 * (EMQX's {@code mqtt_user}, mosquitto-go-auth's {@code test_user}) with rows of each scheme, the real {@code jq},
 * and a password file written by the real {@code mosquitto_passwd}. What a block writes is imported through
 * {@code POST /v1/device-imports}; every row must land with the scheme it was written with and verify the device's
 * password as auth-service verifies it. The one block not run is the {@code emqx eval} that prints EMQX's
 * built-in table on an EMQX node; the conversion of its output is run.
 */
@QuarkusTest
class MigrationDocCommandsTest {

    private static final String EMQX_BUILTIN = "## Export from EMQX's built-in database";
    private static final String EMQX_POSTGRES = "## Export from EMQX's PostgreSQL authenticator";
    private static final String GO_AUTH = "## Export from mosquitto-go-auth's PostgreSQL backend";
    private static final String MOSQUITTO = "## Export from Mosquitto's password file";

    private static String page;

    @BeforeAll
    static void readPage() throws IOException {
        page = Files.readString(Path.of("../docs/migration.md"));
    }

    @Test
    void everyExportSectionsBlockIsOneThisTestRuns() {
        // A block added to a section must get its scenario below: nothing a reader pastes goes untested.
        assertEquals(2, blocks(EMQX_BUILTIN).size());
        assertTrue(blocks(EMQX_BUILTIN).get(0).startsWith("emqx eval"), "the one block run on an EMQX node");
        assertEquals(3, blocks(EMQX_POSTGRES).size());
        assertEquals(2, blocks(GO_AUTH).size());
        assertEquals(1, blocks(MOSQUITTO).size());
    }

    @Test
    void goAuthsBcryptExportTakesOnlyTheBcryptRows() throws Exception {
        String prefix = uniquePrefix("doc-goauth-bcrypt");
        String bcrypt = Bcrypt.hash(PASSWORD, 4);
        try (OldStore store = OldStore.goAuth()) {
            store.goAuthRow(prefix + "bcrypt", bcrypt, true);
            store.goAuthRow(prefix + "pbkdf2", MOSQUITTO_PBKDF2, false);
            store.runAndImport(blocks(GO_AUTH).get(0), Map.of(), 1);
        }
        assertImportedAndVerifying(prefix + "bcrypt", PasswordScheme.BCRYPT);
        assertTrue(Database.row(prefix + "bcrypt").orElseThrow().superuser());
        assertTrue(Database.row(prefix + "pbkdf2").isEmpty());
    }

    @Test
    void goAuthsMixedExportLabelsEachRowWithItsOwnScheme() throws Exception {
        String prefix = uniquePrefix("doc-goauth-mixed");
        try (OldStore store = OldStore.goAuth()) {
            store.goAuthRow(prefix + "bcrypt", Bcrypt.hash(PASSWORD, 4), false);
            store.goAuthRow(prefix + "pbkdf2", MOSQUITTO_PBKDF2, false);
            store.goAuthRow(prefix + "argon2", ARGON2ID, false);
            store.runAndImport(blocks(GO_AUTH).get(1), Map.of(), 3);
        }
        assertImportedAndVerifying(prefix + "bcrypt", PasswordScheme.BCRYPT);
        assertImportedAndVerifying(prefix + "pbkdf2", PasswordScheme.PBKDF2_SHA512);
        assertImportedAndVerifying(prefix + "argon2", PasswordScheme.ARGON2ID);
    }

    @Test
    void emqxPostgresExportsCarryEachAlgorithmsRows() throws Exception {
        String prefix = uniquePrefix("doc-emqx-pg");
        try (OldStore store = OldStore.emqx()) {
            store.emqxRow(prefix + "bcrypt", Bcrypt.hash(PASSWORD, 4), null);
            store.emqxRow(prefix + "excluded", SHA256_PREFIX, SALT);
            store.runAndImport(blocks(EMQX_POSTGRES).get(0), Map.of(), 1);
        }
        assertImportedAndVerifying(prefix + "bcrypt", PasswordScheme.BCRYPT);
        assertTrue(Database.row(prefix + "excluded").isEmpty(), "the bcrypt export's WHERE leaves it out");

        try (OldStore store = OldStore.emqx()) {
            store.emqxRow(prefix + "sha256", SHA256_PREFIX, SALT);
            store.runAndImport(blocks(EMQX_POSTGRES).get(1), Map.of(), 1);
        }
        assertImportedAndVerifying(prefix + "sha256", PasswordScheme.SALTED_SHA256);

        try (OldStore store = OldStore.emqx()) {
            store.emqxRow(prefix + "pbkdf2", EMQX_PBKDF2_SHA256_4096, SALT);
            store.runAndImport(blocks(EMQX_POSTGRES).get(2), Map.of(), 1);
        }
        assertImportedAndVerifying(prefix + "pbkdf2", PasswordScheme.PBKDF2_SHA256);
    }

    @Test
    void emqxBuiltInExportKeysOnTheUserIdTypeTheAuthenticatorHas() throws Exception {
        String prefix = uniquePrefix("doc-emqx-builtin");
        String conversion = blocks(EMQX_BUILTIN).get(1);
        try (OldStore store = OldStore.none()) {
            // What the emqx eval block prints for two rows: each field in base64, then the superuser flag.
            store.file("emqx-users.txt", builtInLine(prefix + "by-username", false)
                    + builtInLine(prefix + "by-username-admin", true));
            store.runAndImport(conversion, Map.of("USER_ID_TYPE", "username"), 2);
            store.file("emqx-users.txt", builtInLine(prefix + "by-clientid", false));
            store.runAndImport(conversion, Map.of("USER_ID_TYPE", "clientid"), 1);
            assertNotEquals(0, store.exitCode(conversion, Map.of()), "USER_ID_TYPE must be set");
            assertNotEquals(0, store.exitCode(conversion, Map.of("USER_ID_TYPE", "client_id")));
        }
        DeviceCredential byUsername = assertImportedAndVerifying(prefix + "by-username", PasswordScheme.SALTED_SHA256);
        assertEquals(prefix + "by-username", byUsername.username(), "EMQX looked the row up by the username");
        assertTrue(assertImportedAndVerifying(prefix + "by-username-admin", PasswordScheme.SALTED_SHA256).superuser());
        DeviceCredential byClientId = assertImportedAndVerifying(prefix + "by-clientid", PasswordScheme.SALTED_SHA256);
        assertNull(byClientId.username(), "EMQX never looked at the username");
    }

    @Test
    void aMosquittoPasswordFileFromMosquittoPasswdImportsEveryUser() throws Exception {
        String prefix = uniquePrefix("doc-mosquitto");
        try (OldStore store = OldStore.none()) {
            Path file = store.dir.resolve("mosquitto.passwd");
            MosquittoPasswd.add(file, MosquittoPasswd.PBKDF2, prefix + "pbkdf2", PASSWORD);
            MosquittoPasswd.add(file, MosquittoPasswd.SHA512, prefix + "sha512", PASSWORD);
            // What the broker skips, the export skips too.
            Files.writeString(file, "# devices of line 3\n\n", java.nio.file.StandardOpenOption.APPEND);
            store.runAndImport(blocks(MOSQUITTO).get(0), Map.of(), 2);
        }
        assertEquals(prefix + "pbkdf2",
                assertImportedAndVerifying(prefix + "pbkdf2", PasswordScheme.PBKDF2_SHA512).username());
        assertImportedAndVerifying(prefix + "sha512", PasswordScheme.SALTED_SHA512);
    }

    private static String builtInLine(String userId, boolean superuser) {
        Base64.Encoder base64 = Base64.getEncoder();
        return base64.encodeToString(userId.getBytes(StandardCharsets.UTF_8)) + " "
                + base64.encodeToString(SHA256_PREFIX.getBytes(StandardCharsets.UTF_8)) + " "
                + base64.encodeToString(SALT.getBytes(StandardCharsets.UTF_8)) + " " + superuser + "\n";
    }

    private static List<String> blocks(String section) {
        return Markdown.codeBlocks(page, section, "bash");
    }

    private static DeviceCredential assertImportedAndVerifying(String clientId, PasswordScheme scheme) {
        DeviceCredential row = Database.row(clientId).orElseThrow(() -> new AssertionError(clientId + " not imported"));
        assertEquals(scheme, row.passwordScheme(), clientId);
        assertTrue(StoredPasswords.matches(scheme, PASSWORD, row.passwordHash()), clientId + " verifies");
        assertFalse(StoredPasswords.matches(scheme, PASSWORD + "x", row.passwordHash()), clientId);
        return row;
    }

    /**
     * An old broker's store: a schema of the test database of its own with the broker's table, reached by
     * {@code psql} through libpq's variables as the page says, and a working directory for the block's files.
     */
    private static final class OldStore implements AutoCloseable {

        final Path dir;
        private final String schema;

        private OldStore(String table) throws IOException, SQLException {
            this.dir = Files.createTempDirectory("migration-doc");
            this.schema = table == null ? null : "old_store_" + Long.toHexString(System.nanoTime());
            if (table != null) {
                execute("CREATE SCHEMA " + schema + "; CREATE TABLE " + schema + "." + table);
            }
        }

        /** mosquitto-go-auth's README schema. */
        static OldStore goAuth() throws IOException, SQLException {
            return new OldStore("test_user (id serial PRIMARY KEY, username text NOT NULL,"
                    + " password_hash text NOT NULL, is_admin boolean NOT NULL)");
        }

        /** EMQX's documented PostgreSQL authenticator table. */
        static OldStore emqx() throws IOException, SQLException {
            return new OldStore("mqtt_user (id serial PRIMARY KEY, username text UNIQUE, password_hash text,"
                    + " salt text, is_superuser boolean)");
        }

        static OldStore none() throws IOException, SQLException {
            return new OldStore(null);
        }

        void goAuthRow(String username, String hash, boolean admin) throws SQLException {
            insert("INSERT INTO " + schema + ".test_user (username, password_hash, is_admin) VALUES (?, ?, ?)",
                    username, hash, admin);
        }

        void emqxRow(String username, String hash, String salt) throws SQLException {
            insert("INSERT INTO " + schema + ".mqtt_user (username, password_hash, salt, is_superuser)"
                    + " VALUES (?, ?, ?, false)", username, hash, salt);
        }

        void file(String name, String text) throws IOException {
            Files.writeString(dir.resolve(name), text);
        }

        /** Runs the block; the lines of devices.ndjson it wrote. */
        List<String> run(String block, Map<String, String> variables) throws Exception {
            Files.deleteIfExists(dir.resolve("devices.ndjson"));
            Result result = bash(block, variables);
            assertEquals(0, result.exitCode(), "the block failed:\n" + block + "\n" + result.output());
            return Files.readAllLines(dir.resolve("devices.ndjson")).stream().filter(line -> !line.isBlank())
                    .toList();
        }

        /** Runs the block and imports what it wrote: every line imported, none rejected. */
        void runAndImport(String block, Map<String, String> variables, int devices) throws Exception {
            List<String> lines = run(block, variables);
            assertEquals(devices, lines.size(), lines.toString());
            Imports.Answer answer = Imports.post(String.join("\n", lines) + "\n");
            assertEquals(200, answer.status());
            assertEquals(devices, answer.summary().get("imported").asLong(), answer.lines().toString());
        }

        int exitCode(String block, Map<String, String> variables) throws Exception {
            return bash(block, variables).exitCode();
        }

        private record Result(int exitCode, String output) {
        }

        private Result bash(String block, Map<String, String> variables) throws Exception {
            // pipefail as an interactive reader would notice a failing stage: its message on the terminal.
            ProcessBuilder builder = new ProcessBuilder("bash", "-c", "set -o pipefail\n" + block)
                    .directory(dir.toFile()).redirectErrorStream(true);
            Map<String, String> environment = builder.environment();
            environment.keySet().removeIf(name -> name.startsWith("PG") || name.equals("USER_ID_TYPE"));
            environment.putAll(libpq());
            environment.putAll(variables);
            Process process = builder.start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the block finished");
            return new Result(process.exitValue(), output);
        }

        /** Where psql connects, as a reader sets it for the old store (its own schema of the test database). */
        private Map<String, String> libpq() {
            Map<String, String> variables = new HashMap<>(Map.of("PGHOST", "127.0.0.1",
                    "PGPORT", String.valueOf(TestDatabase.postgresPort()), "PGDATABASE", "identity",
                    "PGUSER", "identity", "PGPASSWORD", "identity-local-dev", "PGSSLMODE", "verify-full",
                    "PGSSLROOTCERT", TestDatabase.ca().toString()));
            if (schema != null) {
                variables.put("PGOPTIONS", "-c search_path=" + schema);
            }
            return variables;
        }

        private void insert(String sql, Object... values) throws SQLException {
            try (Connection connection = Database.connect();
                    PreparedStatement statement = connection.prepareStatement(sql)) {
                for (int i = 0; i < values.length; i++) {
                    statement.setObject(i + 1, values[i]);
                }
                statement.executeUpdate();
            }
        }

        private void execute(String sql) throws SQLException {
            try (Connection connection = Database.connect(); Statement statement = connection.createStatement()) {
                statement.execute(sql);
            }
        }

        @Override
        public void close() throws Exception {
            if (schema != null) {
                execute("DROP SCHEMA " + schema + " CASCADE");
            }
            try (var files = Files.list(dir)) {
                for (Path file : files.toList()) {
                    Files.delete(file);
                }
            }
            Files.delete(dir);
        }
    }
}
