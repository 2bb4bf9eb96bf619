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

    /**
     * Bearer tokens a caller may present ({@code Authorization: Bearer <token>}); several so that a token can be
     * rotated without downtime. Env {@code REGISTRATION_TOKENS}, comma-separated (a token cannot contain a comma).
     * There is no default: the chart takes them from a Secret, {@code make up} sets a development token, and the
     * service does not start without one.
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
     * Default 1 (any non-empty password). auth-service's fast path makes a stolen database plus its verifier key an
     * HMAC-speed guessing target, which only long machine-generated passwords withstand: deployments that want to
     * enforce that set e.g. 20 here (docs/security.md).
     */
    @WithDefault("1")
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
