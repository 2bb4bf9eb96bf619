package io.deviceidentity.auth.authn;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import jakarta.enterprise.context.ApplicationScoped;

import io.deviceidentity.auth.AuthConfig;
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
 *   <li>on the event loop: client id shape (unknown device), per-device attempt limit (429), password shape
 *       (deny); then, for a device this replica read as active moments ago ({@link RecentlyActiveDevices}),
 *       bcrypt's admission: saturated → 503 overload at once, without the read;</li>
 *   <li>one indexed read on the {@link DatabaseLane} (no queue: all its threads busy → 503 overload at once);
 *       unknown, revoked and wrong-username devices are denied here, without bcrypt, whatever bcrypt's load;</li>
 *   <li>bcrypt on the {@link BcryptExecutor}, admitted by waiting time: when saturated, 503 overload at once.</li>
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
    private final AuthConfig config;

    public Authenticator(CredentialFinder credentials, DeviceAttemptLimiter limiter,
            RecentlyActiveDevices recentlyActive, ConnectionTurns turns, DatabaseLane database, BcryptExecutor bcrypt,
            AuthConfig config) {
        this.credentials = credentials;
        this.limiter = limiter;
        this.recentlyActive = recentlyActive;
        this.turns = turns;
        this.database = database;
        this.bcrypt = bcrypt;
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
        limiter.acquire(request.clientId());
        if (!PasswordPolicy.isUsable(request.password())) {
            return decided(AuthnOutcome.deny("invalid_password"));
        }
        if (recentlyActive.contains(request.clientId())) {
            bcrypt.refuseIfSaturated(deadline);
        }
        if (turns.hadItsTurn(connection) && bcrypt.overloaded()) {
            throw ServiceUnavailableException.overload("bcrypt is saturated and this connection just had its turn");
        }
        return database.run(deadline, () -> credentials.find(request.clientId()))
                .thenCompose(found -> check(request, found, deadline, connection));
    }

    private CompletionStage<AuthnOutcome> check(AuthnRequest request, Optional<DeviceCredential> found,
            Deadline deadline, Object connection) {
        if (found.isEmpty()) {
            recentlyActive.seenInactive(request.clientId());
            return decided(unknownDevice());
        }
        DeviceCredential device = found.get();
        if (!device.isActive()) {
            recentlyActive.seenInactive(request.clientId());
            return decided(AuthnOutcome.deny("revoked"));
        }
        if (device.username() != null && !device.username().equals(request.username())) {
            recentlyActive.seenInactive(request.clientId());
            return decided(AuthnOutcome.deny("bad_username"));
        }
        recentlyActive.seenActive(request.clientId());
        return bcrypt.submit(deadline, () -> {
            boolean matches = Bcrypt.matches(request.password(), device.passwordHash());
            turns.hashed(connection);
            return matches;
        }).thenApply(matches -> matches ? AuthnOutcome.allow(device) : AuthnOutcome.deny("bad_password"));
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
