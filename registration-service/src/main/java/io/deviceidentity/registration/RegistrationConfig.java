package io.deviceidentity.registration;

import java.util.List;

import io.deviceidentity.credentials.Bcrypt;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

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
}
