package io.deviceidentity.registration.tokens;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import org.jboss.logging.Logger;

import io.deviceidentity.registration.RegistrationConfig;

/**
 * The bearer tokens callers may present, each with an id (what the logs name; the token itself never is) and the
 * scopes it grants, compared in constant time.
 *
 * <p>One entry of {@code identity.registration.tokens} is {@code <id>:<scope>+<scope>...:<token>}, e.g.
 * {@code provisioning:read+write:9f1c...}: the id is 1-64 of {@code A-Za-z0-9._-} (starting with a letter or digit),
 * the scopes are {@link Scope}'s labels, the token is everything after the second colon. An entry without any colon is
 * a token of the format before ids existed: still accepted, named {@code token-<position>} (1-based) with every scope,
 * as it could do everything before, and warned about at start. Anything else (an unknown scope, a bad id, two entries
 * with one id or one token) stops the service at start with a message that names the entry by its position and
 * never quotes it.
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
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
    static final String FORMAT = "<id>:<scopes>:<token>, scopes joined by '+' from " + Scope.ALL
            + " (e.g. provisioning:read+write:<token>)";

    /** One accepted token: its id and scopes, and the digest it is compared by. */
    private record Grant(String id, Set<Scope> scopes, byte[] digest) {
    }

    private final List<Grant> grants;

    @Inject
    public BearerTokens(RegistrationConfig config) {
        this(config.tokens());
    }

    BearerTokens(List<String> entries) {
        List<Grant> parsed = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        List<byte[]> digests = new ArrayList<>();
        int position = 0;
        int unnamed = 0;
        for (String raw : entries) {
            String entry = raw.strip();
            if (entry.isEmpty()) {
                continue;
            }
            position++;
            boolean beforeIds = entry.indexOf(':') < 0;
            Grant grant = beforeIds ? unnamed(position, entry) : named(position, entry);
            unnamed += beforeIds ? 1 : 0;
            if (!ids.add(grant.id())) {
                throw invalid(position, "its id '" + grant.id() + "' is used by an earlier entry; ids must be unique");
            }
            if (digests.stream().anyMatch(digest -> MessageDigest.isEqual(digest, grant.digest()))) {
                throw invalid(position, "its token is the same as an earlier entry's; every id needs its own token");
            }
            digests.add(grant.digest());
            parsed.add(grant);
        }
        if (parsed.isEmpty()) {
            throw new IllegalArgumentException("identity.registration.tokens (REGISTRATION_TOKENS) lists no token; "
                    + "write " + FORMAT);
        }
        if (unnamed > 0) {
            LOG.warnf("%d entr%s of identity.registration.tokens (REGISTRATION_TOKENS) carry no id and no scopes:"
                    + " accepted as token-<position> with every scope. Write %s", unnamed, unnamed == 1 ? "y" : "ies",
                    FORMAT);
        }
        this.grants = List.copyOf(parsed);
        LOG.infof("%d bearer credential(s) accepted: %s", grants.size(), String.join(", ",
                grants.stream().map(grant -> grant.id() + " (" + labels(grant.scopes()) + ")").toList()));
    }

    private static Grant unnamed(int position, String token) {
        warnIfShort(position, token);
        return new Grant("token-" + position, EnumSet.allOf(Scope.class), sha256(token));
    }

    private static Grant named(int position, String entry) {
        String[] parts = entry.split(":", 3);
        if (parts.length < 3) {
            throw invalid(position, "it has one ':' where " + FORMAT + " has two");
        }
        String id = parts[0].strip();
        if (!ID.matcher(id).matches()) {
            throw invalid(position, "its id must be 1-64 characters of A-Za-z0-9._- starting with a letter or digit");
        }
        Set<Scope> scopes = EnumSet.noneOf(Scope.class);
        for (String label : parts[1].split("\\+", -1)) {
            Scope scope = Scope.named(label);
            if (scope == null) {
                throw invalid(position, "token '" + id + "' names an unknown or empty scope; scopes are " + Scope.ALL);
            }
            scopes.add(scope);
        }
        String token = parts[2].strip();
        if (token.isEmpty()) {
            throw invalid(position, "token '" + id + "' has an empty token after its scopes");
        }
        warnIfShort(position, token);
        return new Grant(id, scopes, sha256(token));
    }

    private static void warnIfShort(int position, String token) {
        if (token.length() < RECOMMENDED_MIN_LENGTH) {
            LOG.warnf("bearer credential %d is shorter than %d characters; use long random ones outside development",
                    position, RECOMMENDED_MIN_LENGTH);
        }
    }

    private static IllegalArgumentException invalid(int position, String problem) {
        return new IllegalArgumentException("identity.registration.tokens (REGISTRATION_TOKENS) entry " + position
                + " is not " + FORMAT + ": " + problem);
    }

    private static String labels(Set<Scope> scopes) {
        return String.join("+", scopes.stream().map(Scope::label).toList());
    }

    /**
     * The id and scopes of the token an {@code Authorization} header value carries (with the peer's address for the
     * caller); {@code null} when it carries none of the accepted tokens.
     */
    public Caller identify(String authorizationHeader, String address) {
        if (authorizationHeader == null
                || !authorizationHeader.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
            return null;
        }
        byte[] presented = sha256(authorizationHeader.substring(SCHEME.length()).strip());
        Grant match = null;
        for (Grant grant : grants) {
            // No early exit: every grant is compared, whichever matches.
            if (MessageDigest.isEqual(grant.digest(), presented)) {
                match = grant;
            }
        }
        return match == null ? null : new Caller(match.id(), match.scopes(), address);
    }

    /** Whether an {@code Authorization} header value carries one of the accepted tokens. */
    public boolean accepts(String authorizationHeader) {
        return identify(authorizationHeader, "-") != null;
    }

    private static byte[] sha256(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM provides SHA-256", e);
        }
    }
}
