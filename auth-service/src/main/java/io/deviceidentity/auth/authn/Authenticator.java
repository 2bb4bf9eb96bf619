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

/**
 * Decides one authentication, cheapest checks first so that refused work costs as little as possible. The order is
 * chosen so that a storm (bcrypt saturated) changes only the answers that need bcrypt:
 * <ol>
 *   <li>on the event loop: client id shape (unknown device), per-device attempt limit (429), password shape
 *       (deny);</li>
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
    private final DatabaseLane database;
    private final BcryptExecutor bcrypt;
    private final AuthConfig config;

    public Authenticator(CredentialFinder credentials, DeviceAttemptLimiter limiter, DatabaseLane database,
            BcryptExecutor bcrypt, AuthConfig config) {
        this.credentials = credentials;
        this.limiter = limiter;
        this.database = database;
        this.bcrypt = bcrypt;
        this.config = config;
    }

    /** Called on the event loop; never blocks. */
    public CompletionStage<AuthnOutcome> authenticate(AuthnRequest request, Deadline deadline) {
        if (!ClientIdPolicy.isValid(request.clientId())) {
            // No such id can be registered, so it is an unknown device without asking the database.
            return decided(unknownDevice());
        }
        limiter.acquire(request.clientId());
        if (!PasswordPolicy.isUsable(request.password())) {
            return decided(AuthnOutcome.deny("invalid_password"));
        }
        return database.run(deadline, () -> credentials.find(request.clientId()))
                .thenCompose(found -> check(request, found, deadline));
    }

    private CompletionStage<AuthnOutcome> check(AuthnRequest request, Optional<DeviceCredential> found,
            Deadline deadline) {
        if (found.isEmpty()) {
            return decided(unknownDevice());
        }
        DeviceCredential device = found.get();
        if (!device.isActive()) {
            return decided(AuthnOutcome.deny("revoked"));
        }
        if (device.username() != null && !device.username().equals(request.username())) {
            return decided(AuthnOutcome.deny("bad_username"));
        }
        return bcrypt.submit(deadline, () -> Bcrypt.matches(request.password(), device.passwordHash()))
                .thenApply(matches -> matches ? AuthnOutcome.allow(device) : AuthnOutcome.deny("bad_password"));
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
