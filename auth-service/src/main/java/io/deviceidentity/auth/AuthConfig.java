package io.deviceidentity.auth;

import java.time.Duration;
import java.util.Optional;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** auth-service settings beyond the shared overload control ({@code identity.overload.*}). */
@ConfigMapping(prefix = "identity.auth")
public interface AuthConfig {

    /**
     * Answer for a client id with no credential: {@code deny}, or {@code ignore} when EMQX's chain has a second
     * authenticator that should be asked. Never an overload answer.
     */
    @WithDefault("deny")
    UnknownDeviceResult unknownDevice();

    RateLimit rateLimit();

    /**
     * How long this replica remembers that a device's check needed bcrypt (active, but no matching verifier), so that
     * while bcrypt is saturated its next attempt is refused (503 overload) before the database read: counted from the
     * read, or from the start of a later registration-epochs read that shows the device's bucket unchanged (one shared
     * read every half of it while such devices retry). So it is also how stale that refusal's knowledge of a
     * revocation may be. A device allowed since (by bcrypt or the fast path) is forgotten. {@code 0s} reads first,
     * always. See RecentlyActiveDevices.
     */
    @WithDefault("30s")
    Duration activeDeviceMemory();

    FastPath fastPath();

    Legacy legacy();

    /**
     * The dearest stored credential this service verifies, in cost-10 bcrypt verifications ({@code CheckCost}: a
     * cost-14 bcrypt is 16, PBKDF2 at 600 000 rounds 11.5, argon2id at m=32 MiB, t=10 16). A cold check of a row that
     * costs more is denied {@code cost_above_limit} without a hash and without charging any budget: one such check
     * would take a thread for seconds. The default covers everything registration's import accepts (bcrypt cost
     * 04-14, PBKDF2 up to 600 000 rounds, argon2id up to m=32 MiB, t=10); a device with a matching fast-path
     * verifier is still allowed.
     */
    @WithDefault("16")
    double maxCheckUnits();

    /**
     * Longest life of an MQTT session this service allows: every allow carries {@code expire_at} (Unix seconds), at
     * which EMQX disconnects the device (MQTT 5: DISCONNECT 0x87), whatever happens to a kick. Each answer takes a
     * random 0..10 % off, so that devices that connected together (after a storm) do not all reconnect together.
     * {@code 0s}: no {@code expire_at}, sessions last until the device or a kick ends them. Otherwise at least 1m
     * (EMQX refuses an {@code expire_at} in the past, so clock skew needs room). Default 24h (SessionLife).
     */
    @WithDefault("24h")
    Duration maxSessionLife();

    enum UnknownDeviceResult {
        deny,
        ignore
    }

    /**
     * How long this replica counts a client id it read as an active device as "known": its reads use the whole
     * database lane, including the threads reserved for known devices ({@code identity.overload.database.reserved-for-known}),
     * and a source over its failure budget does not stop them before the read. Bounded by
     * {@code rate-limit.max-tracked-devices}; the least recently seen are forgotten first.
     */
    @WithDefault("24h")
    Duration knownDeviceMemory();

    /**
     * Client ids found unknown that this replica remembers (0: none). A remembered id is answered without reading its
     * row, but only after a read of the registration epochs that started after the request arrived, so a device
     * registered a moment ago is never denied because of it (UnknownDevices, docs/security.md).
     */
    @WithDefault("100000")
    long unknownDeviceCache();

    /**
     * Failure budgets (docs/security.md, "The adversary"). Only failures count (a wrong password, a wrong username, an
     * unknown or revoked client id); a matching fast-path verifier is checked before any budget, and a device over
     * its budget is answered {@code 200 deny attempts_exhausted}, never a status EMQX treats as "ignore". Counted in
     * fixed windows of {@link #period()}.
     */
    interface RateLimit {
        @WithDefault("true")
        boolean enabled();

        /**
         * Failed checks a client id may have from one source address per period, across every replica (shared in
         * PostgreSQL); beyond it, checks of that id from that address are denied without bcrypt.
         */
        @WithDefault("10")
        int attempts();

        @WithDefault("1m")
        Duration period();

        /**
         * Failed checks a client id may have per period from all addresses together, across every replica: the
         * ceiling that bounds guessing from many addresses. Much larger than {@link #attempts()}, so one address
         * cannot reach it alone.
         */
        @WithDefault("100")
        int clientAttempts();

        /**
         * Failures one source address may cause per period at one replica (unknown ids, wrong passwords, wrong
         * usernames, revoked ids), refilled smoothly; beyond it, ids not known to exist are denied before the
         * database read and known ones are read only in the unreserved share and denied before bcrypt. Generous,
         * because fleets sit behind NATs; a matching verifier is still allowed.
         */
        @WithDefault("1000")
        int sourceFailures();

        /**
         * Wrong passwords (failures that cost a bcrypt, each charged at its cost: a cost-14 row 16) one source address
         * may cause per period at one replica, refilled smoothly, at most a quarter of them at once; beyond it, cold
         * checks from that address are denied {@code guesses_exhausted} without bcrypt. Much smaller than
         * {@link #sourceFailures()}: each costs a hash, so this is what keeps a spray over many registered ids from
         * taking the fleet's bcrypt capacity (4 addresses: at most 4 × 10 = 40 hashes a minute, 0.7/s, against the
         * ~13/s one core hashes). Split in two halves (SourceBudget): one for client ids that failed from the address
         * within the period, one for the others, so one id failing over and over (an attacker, a stale device) cannot
         * take the cold logins of the address's other devices. Wrong passwords sent at once are all charged, beyond
         * the half if need be (a debt paid back before its next hash), and cold checks take their guess before the
         * hash (given back on a match), so guesses in flight count. A device with a matching verifier is allowed
         * whatever the address spent.
         */
        @WithDefault("10")
        int sourceGuesses();

        /** Devices whose counts are kept in memory at once; the least recently seen are forgotten first. */
        @WithDefault("200000")
        long maxTrackedDevices();

        /**
         * How often each replica writes its failures to the shared counts, counted from the end of the previous
         * write: the failures of one interval on one counter are one row. Longer: fewer statements, other replicas
         * learn later.
         */
        @WithDefault("200ms")
        Duration writeInterval();

        /** Counters written by one statement at most. */
        @WithDefault("1000")
        int writeBatch();

        /**
         * Counters waiting for the next write at most; a new one beyond it stays local (this replica enforces it, the
         * others do not see it) and is counted in {@code identity_budget_writes_dropped_total}.
         */
        @WithDefault("20000")
        int writeQueue();

        /**
         * How old this replica's view of a pair's shared counts may be before a cold check reads them again (on the
         * database lane): the other replicas' failures of the last interval may be missing from a decision.
         */
        @WithDefault("1s")
        Duration refreshInterval();
    }

    /**
     * The verified-credential fast path (docs/security.md): after a successful bcrypt check a verifier, an
     * HMAC-SHA256 under a key that is not in the database, is stored with the credential; a later check with the same
     * credential and password matches it and is allowed without bcrypt.
     */
    interface FastPath {
        /** Off: pure bcrypt, no verifier read or written. */
        @WithDefault("true")
        boolean enabled();

        /**
         * The key set, {@code id:base64key} pairs separated by commas (env {@code IDENTITY_AUTH_FAST_PATH_KEYS}, from a
         * Secret). Ids are 1..32 of {@code A-Z a-z 0-9 . _ -}; keys at least 32 random bytes. A verifier under an id
         * that is not listed is ignored (bcrypt, then re-written under the current key). Required while enabled: the
         * service does not start without it.
         */
        Optional<String> keys();

        /** The id new verifiers are written under. Optional when the set has a single key. */
        Optional<String> currentKey();

        /**
         * Verifier writes waiting for the writer; when full, a write is dropped and counted (the device pays bcrypt
         * once more on its next connect). Never in the request's path.
         */
        @WithDefault("1000")
        int writeQueue();

        /** A write that waited longer than this is dropped: it is stale, and a queue must stay short. */
        @WithDefault("5s")
        Duration writeMaxWait();

        /** Verifiers written by one statement at most (whatever is queued when the writer wakes, up to this). */
        @WithDefault("100")
        int writeBatch();
    }

    /**
     * Rows imported with another broker's hash (docs/migration.md): verified with their own scheme, and replaced by
     * bcrypt after their first successful login, when the bcrypt lane is idle (otherwise deferred to a later login).
     */
    interface Legacy {
        /**
         * The bcrypt cost of an upgraded row, and the cost below which a bcrypt row is re-hashed (at this cost) after
         * a successful slow-path login: keep it equal to registration-service's
         * {@code identity.registration.bcrypt-cost}, or upgraded rows appear in its weak-hash report.
         */
        @WithDefault("10")
        int upgradeCost();

        /**
         * Upgrades waiting to be stored (one at a time, after the answer); beyond it an upgrade is dropped and
         * counted {@code deferred}: the row keeps its hash and a later login upgrades it.
         */
        @WithDefault("100")
        int upgradeQueue();
    }
}
