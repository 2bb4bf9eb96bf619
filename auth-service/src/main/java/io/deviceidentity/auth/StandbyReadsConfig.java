package io.deviceidentity.auth;

import java.util.Optional;

import io.deviceidentity.credentials.StandbyReads;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * {@code identity.db.standby-reads.*}: credential reads from a synchronous standby ({@link StandbyReads};
 * docs/database-ha.md). Off by default: every read goes to the primary through PgBouncer. The other
 * {@code identity.db.*} keys (host, port, name, TLS) are plain properties of each service's application.properties.
 */
@ConfigMapping(prefix = "identity.db.standby-reads")
public interface StandbyReadsConfig {

    /**
     * Read credentials (and the fast path's verifier) from the standby {@link Standby} names whenever it proves it
     * has replayed everything it received, from the primary otherwise. Needs {@code identity.db.standby.host}.
     */
    @WithDefault("false")
    boolean enabled();

    /** {@code identity.db.standby.*}: where the synchronous standby answers (PostgreSQL itself, TLS as the primary). */
    @ConfigMapping(prefix = "identity.db.standby")
    interface Standby {
        /** An address that reaches only the current synchronous standby (HAProxy on Patroni's {@code /sync}). */
        Optional<String> host();

        @WithDefault("5432")
        int port();
    }
}
