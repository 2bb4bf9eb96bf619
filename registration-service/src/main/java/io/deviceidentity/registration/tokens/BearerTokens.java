package io.deviceidentity.registration.tokens;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import org.jboss.logging.Logger;

import io.deviceidentity.registration.RegistrationConfig;

/**
 * The bearer tokens callers may present, compared in constant time.
 *
 * <p>Both sides are reduced to SHA-256 digests first, so that {@link MessageDigest#isEqual} always compares 32
 * bytes: the time taken reveals neither how many leading characters matched nor the configured token's length.
 * Every configured token is compared, without stopping at the first match.
 */
@ApplicationScoped
public class BearerTokens {

    private static final Logger LOG = Logger.getLogger(BearerTokens.class);
    private static final String SCHEME = "Bearer ";
    /** Below this a token can be guessed; warned about, not refused, so a short development token still works. */
    private static final int RECOMMENDED_MIN_LENGTH = 16;

    private final List<byte[]> digests;

    @Inject
    public BearerTokens(RegistrationConfig config) {
        this(config.tokens());
    }

    BearerTokens(List<String> tokens) {
        List<String> usable = tokens.stream().map(String::strip).filter(token -> !token.isEmpty()).toList();
        if (usable.isEmpty()) {
            throw new IllegalArgumentException("identity.registration.tokens (REGISTRATION_TOKENS) lists no token");
        }
        if (usable.stream().anyMatch(token -> token.length() < RECOMMENDED_MIN_LENGTH)) {
            LOG.warnf("a configured bearer credential is shorter than %d characters;"
                    + " use long random ones outside development", RECOMMENDED_MIN_LENGTH);
        }
        this.digests = usable.stream().map(BearerTokens::sha256).toList();
        LOG.infof("%d bearer credential(s) accepted", digests.size());
    }

    /** Whether an {@code Authorization} header value carries one of the accepted tokens. */
    public boolean accepts(String authorizationHeader) {
        if (authorizationHeader == null
                || !authorizationHeader.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
            return false;
        }
        byte[] presented = sha256(authorizationHeader.substring(SCHEME.length()).strip());
        boolean accepted = false;
        for (byte[] digest : digests) {
            accepted |= MessageDigest.isEqual(digest, presented);
        }
        return accepted;
    }

    private static byte[] sha256(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM provides SHA-256", e);
        }
    }
}
