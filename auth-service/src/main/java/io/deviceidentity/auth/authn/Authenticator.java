package io.deviceidentity.auth.authn;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import jakarta.enterprise.context.ApplicationScoped;

import io.deviceidentity.auth.AuthConfig;
import io.deviceidentity.auth.fastpath.FastPath;
import io.deviceidentity.auth.ratelimit.DeviceAttemptLimiter;
import io.deviceidentity.credentials.Bcrypt;
import io.deviceidentity.credentials.ClientIdPolicy;
import io.deviceidentity.credentials.CredentialFinder;
import io.deviceidentity.credentials.DeviceCredential;
import io.deviceidentity.credentials.PasswordPolicy;
import io.deviceidentity.overload.BcryptExecutor;
import io.deviceidentity.overload.DatabaseLane;
import io.deviceidentity.overload.Deadline;
import io.deviceidentity.overload.ServiceUnavailableException;

/**
 * Decides one authentication, cheapest checks first so that refused work costs as little as possible. The order is
 * chosen so that a storm (bcrypt saturated) changes only the answers that need bcrypt:
 * <ol>
 *   <li>on the event loop: client id shape (unknown device), a device out of attempts (429, nothing taken), password
 *       shape (deny); then, for a device whose last check here needed bcrypt moments ago
 *       ({@link RecentlyActiveDevices}), bcrypt's admission: saturated → 503 overload at once, without the read;</li>
 *   <li>one indexed read on the {@link DatabaseLane} (no queue: all its threads busy → 503 overload at once), the
 *       fast path's verifier in the same query; unknown, revoked and wrong-username devices are denied here, without
 *       bcrypt, whatever bcrypt's load;</li>
 *   <li>the fast path ({@link FastPath}): a matching verifier allows without bcrypt and without taking an
 *       attempt;</li>
 *   <li>a cold check: joined to an identical check in flight if there is one ({@link IdenticalChecks}), otherwise
 *       one attempt taken (429 when none is left), connection turn-taking and bcrypt on the {@link BcryptExecutor},
 *       admitted by waiting time (saturated → 503 overload at once); a match writes a verifier after the answer.</li>
 * </ol>
 * Why the read comes before bcrypt's refusal: answering a revoked device 503 instead of deny would let EMQX ask the
 * next authenticator in its chain, and answering an unknown one {@code overload} would hide a misconfigured fleet
 * behind a capacity alarm. The read costs a fraction of a millisecond; the hash costs 60-80.
 */
@ApplicationScoped
public class Authenticator {

    private final CredentialFinder credentials;
    private final DeviceAttemptLimiter limiter;
    private final RecentlyActiveDevices recentlyActive;
    private final ConnectionTurns turns;
    private final DatabaseLane database;
    private final BcryptExecutor bcrypt;
    private final FastPath fastPath;
    private final IdenticalChecks identicalChecks;
    private final AuthConfig config;

    public Authenticator(CredentialFinder credentials, DeviceAttemptLimiter limiter,
            RecentlyActiveDevices recentlyActive, ConnectionTurns turns, DatabaseLane database, BcryptExecutor bcrypt,
            FastPath fastPath, IdenticalChecks identicalChecks, AuthConfig config) {
        this.credentials = credentials;
        this.limiter = limiter;
        this.recentlyActive = recentlyActive;
        this.turns = turns;
        this.database = database;
        this.bcrypt = bcrypt;
        this.fastPath = fastPath;
        this.identicalChecks = identicalChecks;
        this.config = config;
    }

    /**
     * Called on the event loop; never blocks. {@code connection} identifies the caller's connection (EMQX sends one
     * request at a time on each), for {@link ConnectionTurns}; null when unknown.
     */
    public CompletionStage<AuthnOutcome> authenticate(AuthnRequest request, Deadline deadline, Object connection) {
        if (!ClientIdPolicy.isValid(request.clientId())) {
            // No such id can be registered, so it is an unknown device without asking the database.
            return decided(unknownDevice());
        }
        limiter.refuseIfExhausted(request.clientId());
        byte[] password = PasswordPolicy.usableBytes(request.password());
        if (password == null) {
            return decided(AuthnOutcome.deny("invalid_password"));
        }
        if (recentlyActive.contains(request.clientId())) {
            bcrypt.refuseIfSaturated(deadline);
        }
        return database.run(deadline, () -> credentials.find(request.clientId(), fastPath.enabled()))
                .thenCompose(found -> decide(request, password, found, deadline, connection));
    }

    private CompletionStage<AuthnOutcome> decide(AuthnRequest request, byte[] password,
            Optional<DeviceCredential> found, Deadline deadline, Object connection) {
        String clientId = request.clientId();
        DeviceCredential device = found.orElse(null);
        AuthnOutcome denial = device == null ? unknownDevice()
                : !device.isActive() ? AuthnOutcome.deny("revoked")
                : device.username() != null && !device.username().equals(request.username())
                        ? AuthnOutcome.deny("bad_username")
                        : null;
        if (denial != null) {
            recentlyActive.seenInactive(clientId);
            limiter.acquire(clientId);
            return decided(denial);
        }
        FastPath.Check check = fastPath.check(clientId, request.username(), password, device);
        if (check.allows()) {
            recentlyActive.seenInactive(clientId);
            if (check == FastPath.Check.VERIFIED_UNDER_OLD_KEY) {
                fastPath.remember(clientId, request.username(), password, device);
            }
            return decided(AuthnOutcome.verified(device));
        }
        recentlyActive.seenActive(clientId);
        return identicalChecks.check(clientId, request.username(), password, device,
                () -> hash(request, password, device, deadline, connection))
                .thenApply(matches -> {
                    if (!matches) {
                        return AuthnOutcome.deny("bad_password");
                    }
                    recentlyActive.seenInactive(clientId);
                    return AuthnOutcome.allow(device);
                });
    }

    /**
     * The one bcrypt of a cold check (checks that join it take no attempt: they cost nothing); on a match the
     * verifier is queued before anyone is answered.
     */
    private CompletionStage<Boolean> hash(AuthnRequest request, byte[] password, DeviceCredential device,
            Deadline deadline, Object connection) {
        limiter.acquire(request.clientId());
        if (turns.hadItsTurn(connection) && bcrypt.overloaded()) {
            throw ServiceUnavailableException.overload("bcrypt is saturated and this connection just had its turn");
        }
        return bcrypt.submit(deadline, () -> {
            boolean matches = Bcrypt.matches(request.password(), device.passwordHash());
            turns.hashed(connection);
            return matches;
        }).thenApply(matches -> {
            if (matches) {
                fastPath.remember(request.clientId(), request.username(), password, device);
            }
            return matches;
        });
    }

    private AuthnOutcome unknownDevice() {
        return config.unknownDevice() == AuthConfig.UnknownDeviceResult.ignore
                ? AuthnOutcome.ignore("unknown_device")
                : AuthnOutcome.deny("unknown_device");
    }

    private static CompletionStage<AuthnOutcome> decided(AuthnOutcome outcome) {
        return CompletableFuture.completedFuture(outcome);
    }
}
