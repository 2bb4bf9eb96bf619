package io.deviceidentity.auth.authn;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import jakarta.enterprise.context.ApplicationScoped;

import io.deviceidentity.auth.AuthConfig;
import io.deviceidentity.auth.fastpath.FastPath;
import io.deviceidentity.auth.legacy.LegacyUpgrades;
import io.deviceidentity.auth.ratelimit.AttemptBudget;
import io.deviceidentity.auth.ratelimit.Charge;
import io.deviceidentity.auth.ratelimit.SourceBudget;
import io.deviceidentity.credentials.CheckCost;
import io.deviceidentity.credentials.ClientIdPolicy;
import io.deviceidentity.credentials.CredentialFinder;
import io.deviceidentity.credentials.DeviceCredential;
import io.deviceidentity.credentials.PasswordPolicy;
import io.deviceidentity.credentials.legacy.PasswordScheme;
import io.deviceidentity.credentials.legacy.StoredPasswords;
import io.deviceidentity.overload.BcryptWork;
import io.deviceidentity.overload.DatabaseWork;
import io.deviceidentity.overload.Deadline;
import io.deviceidentity.overload.Lane;
import io.deviceidentity.overload.ServiceUnavailableException;
import io.deviceidentity.overload.Share;

/**
 * Decides one authentication, cheapest checks first so that refused work costs as little as possible. The order is
 * chosen so that a storm (bcrypt saturated) changes only the answers that need bcrypt, and so that the adversary
 * (docs/security.md) can neither lock a device out nor starve the fleet:
 * <ol>
 *   <li>on the event loop: client id shape (unknown device), password shape (deny); a source address over its failure
 *       budget ({@link SourceBudget}) is denied {@code source_exhausted} here, without the read, unless the client id
 *       is known to exist ({@link KnownDevices}); a client id remembered as unknown ({@link UnknownDevices}) is denied
 *       after one shared, single-flighted epochs read, without reading its row; then, for a device whose last check
 *       here needed bcrypt moments ago ({@link RecentlyActiveDevices}), bcrypt's admission: saturated → 503 overload
 *       at once, without the read;</li>
 *   <li>one indexed read on the database {@link Lane}, in the share known devices keep for themselves only when the id
 *       is known and its source is within budget, so a flood of invented ids cannot take the fleet's reads (no queue
 *       beyond the share: 503 overload at once); the fast path's verifier comes in the same query; unknown, revoked
 *       and wrong-username devices are denied here, without bcrypt, whatever bcrypt's load;</li>
 *   <li>the fast path ({@link FastPath}): a matching verifier allows without bcrypt and before any budget, so
 *       nobody's failures can stop a device presenting a credential it has used before;</li>
 *   <li>a cold check: denied (200, which ends EMQX's chain; never 429 or 503; the body names the reason)
 *       {@code guesses_exhausted} when the id's share of its source's wrong-password budget is spent
 *       ({@link SourceBudget}: ids that failed from there lately have their own share, so they cannot take the cold
 *       logins of the address's other devices), {@code attempts_exhausted} when the (client id, source) pair or the
 *       client id is over its failure budget ({@link AttemptBudget}, shared by every replica); every budget charges
 *       a wrong password at the check's cost ({@link Charge}); the source's wrong passwords are charged even beyond
 *       its budget, and its guess is taken before the hash, so guesses in flight count; when the shared counts would
 *       have to be read first and bcrypt is saturated, 503 overload at once, without that read); otherwise joined to an
 *       identical check in flight if there is one ({@link IdenticalChecks}), or connection turn-taking and bcrypt
 *       on the bcrypt {@link Lane}, admitted by waiting time (saturated → 503 overload at once); a match writes a
 *       verifier after the answer, a mismatch is charged to every budget.</li>
 * </ol>
 * Why the read comes before bcrypt's refusal: answering a revoked device 503 instead of deny would let EMQX ask the
 * next authenticator in its chain, and answering an unknown one {@code overload} would hide a misconfigured fleet
 * behind a capacity alarm. The read costs a fraction of a millisecond; the hash costs 60-80.
 */
@ApplicationScoped
public class Authenticator {

    private final CredentialFinder credentials;
    private final SourceBudget sources;
    private final AttemptBudget attempts;
    private final KnownDevices known;
    private final UnknownDevices unknown;
    private final RecentlyActiveDevices recentlyActive;
    private final ConnectionTurns turns;
    private final Lane database;
    private final Lane bcrypt;
    private final FastPath fastPath;
    /** Whether a read brings the stored verifier: the fast path is on or off for the service's life. */
    private final boolean readsVerifiers;
    private final IdenticalChecks identicalChecks;
    private final AuthConfig config;
    private final LegacyUpgrades legacyUpgrades;

    public Authenticator(CredentialFinder credentials, SourceBudget sources, AttemptBudget attempts,
            KnownDevices known, UnknownDevices unknown, RecentlyActiveDevices recentlyActive, ConnectionTurns turns,
            @DatabaseWork Lane database, @BcryptWork Lane bcrypt, FastPath fastPath, IdenticalChecks identicalChecks,
            AuthConfig config, LegacyUpgrades legacyUpgrades) {
        this.legacyUpgrades = legacyUpgrades;
        this.credentials = credentials;
        this.sources = sources;
        this.attempts = attempts;
        this.known = known;
        this.unknown = unknown;
        this.recentlyActive = recentlyActive;
        this.turns = turns;
        this.database = database;
        this.bcrypt = bcrypt;
        this.fastPath = fastPath;
        this.readsVerifiers = fastPath.enabled();
        this.identicalChecks = identicalChecks;
        this.config = config;
    }

    /**
     * Called on the event loop; never blocks. {@code connection} identifies the caller's connection (EMQX sends one
     * request at a time on each), for {@link ConnectionTurns}; null when unknown.
     */
    public CompletionStage<AuthnOutcome> authenticate(AuthnRequest request, Deadline deadline, Object connection) {
        String clientId = request.clientId();
        if (!ClientIdPolicy.isValid(clientId)) {
            // No such id can be registered, so it is an unknown device without asking the database.
            return decided(unknownDevice());
        }
        byte[] password = PasswordPolicy.usableBytes(request.password());
        if (password == null) {
            return decided(AuthnOutcome.deny("invalid_password"));
        }
        String source = request.source();
        boolean sourceExhausted = sources.exhausted(source);
        boolean knownToExist = known.contains(clientId);
        if (sourceExhausted && !knownToExist) {
            return decided(AuthnOutcome.overBudget(SOURCE_EXHAUSTED));
        }
        if (recentlyActive.contains(clientId)) {
            // The row's cost is not known before the read: judged as the cheapest check, so this never refuses a
            // request that bcrypt would take.
            refuseIfBcryptWouldNow(deadline, CheckCost.FLOOR, connection);
        }
        Share share = knownToExist && !sourceExhausted ? Share.KNOWN
                : Share.OTHER;
        CompletionStage<Boolean> rememberedUnknown = knownToExist ? CompletableFuture.completedFuture(false)
                : unknown.stillUnknown(clientId, deadline.arrivalNanos());
        return rememberedUnknown.thenCompose(isUnknown -> {
            if (isUnknown) {
                sources.failed(source);
                return decided(unknownDevice());
            }
            long[] epochs = unknown.epochsBeforeRead();
            return database.run(deadline, share, () -> credentials.find(clientId, readsVerifiers))
                    .thenCompose(found -> decide(request, source, password, found, epochs, deadline, connection));
        });
    }

    /** Denial reason of a request from an address over its failure budget, for an id not known to exist. */
    static final String SOURCE_EXHAUSTED = "source_exhausted";
    /** Denial reason of a cold check over a failure budget of its id: (client id, source) or the client id's ceiling. */
    static final String ATTEMPTS_EXHAUSTED = "attempts_exhausted";
    /** Denial reason of a cold check whose share of its address's wrong-password budget is spent (SourceBudget). */
    static final String GUESSES_EXHAUSTED = "guesses_exhausted";
    /** Denial reason of a cold check whose stored hash costs more than {@code identity.auth.max-check-units}. */
    static final String COST_ABOVE_LIMIT = "cost_above_limit";

    private CompletionStage<AuthnOutcome> decide(AuthnRequest request, String source, byte[] password,
            Optional<DeviceCredential> found, long[] epochsBeforeRead, Deadline deadline, Object connection) {
        String clientId = request.clientId();
        DeviceCredential device = found.orElse(null);
        if (device == null) {
            unknown.foundUnknown(clientId, epochsBeforeRead);
            known.seenMissing(clientId);
        } else {
            unknown.foundKnown(clientId);
            // Revoked devices count as known too: their reads keep the reserved share, so a flood cannot turn their
            // deny into a 503 that EMQX would pass on to the next authenticator.
            known.seenActive(clientId);
        }
        AuthnOutcome denial = device == null ? unknownDevice()
                : !device.isActive() ? AuthnOutcome.deny("revoked")
                : device.username() != null && !device.username().equals(request.username())
                        ? AuthnOutcome.deny("bad_username")
                        : null;
        if (denial != null) {
            recentlyActive.seenInactive(clientId);
            sources.failed(source);
            if (device != null && device.isActive()) {
                attempts.failed(clientId, source);
            }
            return decided(denial);
        }
        // A legacy row never has a verifier to match (none is written for it: LegacyUpgrades), and is not asked.
        FastPath.Check check = device.legacy() ? FastPath.Check.NO_VERIFIER
                : fastPath.check(clientId, request.username(), password, device);
        if (check.allows()) {
            recentlyActive.seenInactive(clientId);
            if (check == FastPath.Check.VERIFIED_UNDER_OLD_KEY) {
                fastPath.remember(clientId, request.username(), password, device);
            }
            return decided(AuthnOutcome.verified(device));
        }
        if (check != FastPath.Check.MISMATCH) {
            // Its next attempt needs bcrypt too. Not after a mismatch with a stored verifier: that is a guess (or a
            // re-keyed device, once), and the device itself will match the verifier next time; remembering it would
            // let anybody's guesses turn the device's fast-path logins into 503s while bcrypt is saturated.
            recentlyActive.seenActive(clientId, epochsBeforeRead);
        }
        double units = CheckCost.of(device);
        if (units > config.maxCheckUnits()) {
            // Dearer than this service verifies (a row written around registration's import bounds): no hash runs,
            // and nothing is charged to a budget, since the caller did nothing wrong.
            return decided(AuthnOutcome.deny(COST_ABOVE_LIMIT));
        }
        if (sources.guessesExhausted(source, clientId)) {
            return decided(AuthnOutcome.overBudget(GUESSES_EXHAUSTED));
        }
        if (!attempts.decidesWithoutReading(clientId, source)) {
            // The budget would be read first, a second database step, and bcrypt could not take the check now: in a
            // storm, the first attempt of every device. Refused as the hash would be, without the read. A device over
            // its budget is then answered 503, as every cold check is while bcrypt is saturated, not denied: the
            // budget is read at a retry that bcrypt could take. Unknown, revoked and mis-named devices were denied above.
            refuseIfBcryptWouldNow(deadline, units, connection);
        }
        return attempts.allows(clientId, source, deadline).thenCompose(allowed -> {
            if (!allowed) {
                return decided(AuthnOutcome.overBudget(ATTEMPTS_EXHAUSTED));
            }
            // Decided again at the last moment, with the address's guesses in flight counted (SourceBudget), and
            // charged at the check's cost, so that the dearest rows buy an attacker no more CPU than ordinary ones.
            int charge = Charge.of(device);
            SourceBudget.Guess guess = sources.tryGuess(source, clientId, charge);
            if (guess == null) {
                return decided(AuthnOutcome.overBudget(GUESSES_EXHAUSTED));
            }
            CompletionStage<Boolean> checked;
            try {
                checked = identicalChecks.check(clientId, request.username(), password, device,
                        () -> hash(request, password, device, units, deadline, connection));
            } catch (RuntimeException e) {
                guess.notHashed();
                throw e;
            }
            return checked.whenComplete((matches, failure) -> {
                if (Boolean.FALSE.equals(matches)) {
                    guess.wrongPassword();
                } else if (Boolean.TRUE.equals(matches)) {
                    guess.matched();
                } else {
                    guess.notHashed();
                }
            }).thenApply(matches -> {
                if (!matches) {
                    attempts.failed(clientId, source, charge);
                    return AuthnOutcome.deny("bad_password");
                }
                recentlyActive.seenInactive(clientId);
                return AuthnOutcome.allow(device);
            });
        });
    }

    /**
     * The one bcrypt of a cold check (checks that join it cost nothing more); on a match the verifier is queued
     * before anyone is answered. A legacy row (a hash imported as it was) is verified with its own scheme: on the
     * bcrypt lane when that costs like a hash (PBKDF2, argon2id), where the request is when it costs less than
     * parsing it (a salted digest: {@link PasswordScheme#needsHashLane()}); a match starts its upgrade to bcrypt
     * ({@link LegacyUpgrades}) instead of writing a verifier; so does a bcrypt row below the upgrade cost, when bcrypt
     * is idle.
     */
    private CompletionStage<Boolean> hash(AuthnRequest request, byte[] password, DeviceCredential device,
            double units, Deadline deadline, Object connection) {
        PasswordScheme scheme = device.passwordScheme();
        if (device.legacy() && scheme != null && !scheme.needsHashLane()) {
            return CompletableFuture.completedFuture(
                    afterMatch(StoredPasswords.matches(scheme, request.password(), device.passwordHash()), request,
                            password, device, deadline));
        }
        // The queue's admission is asked by submit itself.
        refuseIfThisConnectionHadItsTurn(connection);
        return bcrypt.submit(deadline, units, () -> {
            boolean matches = StoredPasswords.matches(scheme, request.password(), device.passwordHash());
            turns.hashed(connection);
            return matches;
        }).thenApply(matches -> afterMatch(matches, request, password, device, deadline));
    }

    /**
     * Refuses ({@code overload}) a check that bcrypt would refuse if it were submitted now: this connection just had
     * its turn while the queue stands ({@link ConnectionTurns}), or the queue cannot admit it. Asked before the work
     * that only a hash could use (a database read), so that a storm's refusals skip it.
     */
    private void refuseIfBcryptWouldNow(Deadline deadline, double units, Object connection) {
        refuseIfThisConnectionHadItsTurn(connection);
        bcrypt.refuseIfSaturated(deadline, units);
    }

    private void refuseIfThisConnectionHadItsTurn(Object connection) {
        if (turns.hadItsTurn(connection) && bcrypt.overloaded()) {
            throw ServiceUnavailableException.overload("bcrypt is saturated and this connection just had its turn");
        }
    }

    private boolean afterMatch(boolean matches, AuthnRequest request, byte[] password, DeviceCredential device,
            Deadline deadline) {
        if (matches && device.legacy()) {
            legacyUpgrades.upgrade(device, request.username(), request.password(), password, deadline);
        } else if (matches && !(legacyUpgrades.weak(device)
                && legacyUpgrades.upgrade(device, request.username(), request.password(), password, deadline))) {
            // A weak row whose re-hash started gets its verifier with the new hash (UpgradeWriter), not this one.
            fastPath.remember(request.clientId(), request.username(), password, device);
        }
        return matches;
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
