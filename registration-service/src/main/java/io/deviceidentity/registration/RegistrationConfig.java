package io.deviceidentity.registration;

import java.util.List;

import io.deviceidentity.credentials.Bcrypt;
import io.quarkus.runtime.configuration.MemorySize;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;

/** registration-service settings beyond the shared overload control ({@code identity.overload.*}). */
@ConfigMapping(prefix = "identity.registration")
public interface RegistrationConfig {

    /** Of {@link #minPasswordLength()}; the chart's registrationService.minPasswordLength has the same. */
    int DEFAULT_MIN_PASSWORD_LENGTH = 22;

    /**
     * Bearer tokens a caller may present ({@code Authorization: Bearer <token>}), each as
     * {@code <id>:<scopes>:<token>}: the id names the token in every log line of a write (never the token), the
     * scopes ({@code read}, {@code write}, {@code superuser}, {@code import-replace}, joined by {@code +}) say what it
     * may do. Several, so that a token can be rotated without downtime and each caller gets only what it needs.
     * Env {@code REGISTRATION_TOKENS}, comma-separated (a token cannot contain a comma). An entry without a colon (the
     * format before ids) is accepted as {@code token-<position>} with every scope, with a warning. There is no
     * default: the chart takes them from a Secret, {@code make up} sets a development token, and the service does not
     * start without one (nor with a malformed entry).
     */
    List<String> tokens();

    /**
     * bcrypt work factor of new hashes (4..31). Every step doubles the cost of each authentication, which is
     * auth-service's capacity: change it together with the auth tier's sizing. Default {@value Bcrypt#DEFAULT_COST}.
     */
    @WithDefault("" + Bcrypt.DEFAULT_COST)
    int bcryptCost();

    /**
     * Shortest password accepted, in characters (Unicode code points); shorter ones get {@code 400 invalid_password}.
     * Default {@value #DEFAULT_MIN_PASSWORD_LENGTH}: a copy of the database plus auth-service's fast-path key lets an
     * attacker test guesses at HMAC-SHA256 speed, so the password's own entropy is the only defence; 22 characters
     * are 128+ bits from a base64 or alphanumeric generator and still 88 bits from a hex one (docs/security.md,
     * "Password length"). Lower it only for fleets whose passwords cannot change; a hash brought by
     * {@code password_hash} is not checked (no password is there).
     */
    @WithDefault("" + DEFAULT_MIN_PASSWORD_LENGTH)
    int minPasswordLength();

    /** The bulk import of existing bcrypt hashes ({@code POST /v1/device-imports}, docs/migration.md). */
    @WithName("import")
    Import imports();

    interface Import {
        /**
         * Rows written per transaction: each batch is one statement on one pooled connection, committed before the
         * next one is read, so an import never holds a transaction (or a PgBouncer server connection) for longer than
         * one batch. 500 rows take a few tens of milliseconds. Default 500, at most 10000.
         */
        @WithDefault("500")
        int batchSize();

        /** Longest accepted line; a longer one is rejected (and skipped to its end, never buffered). Default 16K. */
        @WithDefault("16K")
        MemorySize maxLineSize();

        /**
         * Largest import body. Only the import is exempt from {@code quarkus.http.limits.max-body-size} (16 KiB for
         * every other request); the body is read as a stream, so this bounds time, not memory. Default 4G (about 25
         * million lines of 150 bytes).
         */
        @WithDefault("4G")
        MemorySize maxBodySize();

        /**
         * Imports that may run at once; one more is refused {@code 429 import_in_progress}. Each running import
         * takes at most one database thread at a time, and only one that leaves another free. Default 1.
         */
        @WithDefault("1")
        int concurrency();
    }
}
