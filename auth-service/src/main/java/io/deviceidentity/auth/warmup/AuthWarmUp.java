package io.deviceidentity.auth.warmup;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.core.MediaType;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.agroal.api.AgroalDataSource;
import io.deviceidentity.auth.authn.Authenticator;
import io.deviceidentity.auth.authn.AuthnRequest;
import io.deviceidentity.auth.mtls.MutualTlsConfig;
import io.deviceidentity.credentials.Bcrypt;
import io.deviceidentity.credentials.CheckCost;
import io.deviceidentity.http.JsonBodies;
import io.deviceidentity.overload.BcryptWork;
import io.deviceidentity.overload.Deadline;
import io.deviceidentity.overload.Lane;
import io.deviceidentity.overload.OverloadConfig;
import io.deviceidentity.readiness.ReadinessConfig;
import io.deviceidentity.readiness.SelfRequests;
import io.deviceidentity.readiness.WarmUp;
import io.deviceidentity.readiness.WarmUpPlan;
import io.deviceidentity.readiness.WarmUpStep;

/**
 * What auth-service runs before it reports ready ({@link WarmUp}), through its public entry points only:
 * <ol>
 *   <li>a validated connection in each pool: the reads' and the verifier writer's;</li>
 *   <li>authentications of devices that do not exist, from an EMQX-shaped body through the real parser and
 *       {@link Authenticator#authenticate} (client id rules, attempt limiter, the read on the database lane, the
 *       decision), a few times, so that the lane's step-time estimate is made of warm steps (one cold step of a
 *       second would make it refuse a burst as "would not finish within the allowed wait");</li>
 *   <li>bcrypt on its lane: one hash and {@value #HASHES} verifications of it, the JIT-sensitive part (the first
 *       hash runs interpreted and takes several times a warm one, which also inflates the lane's measured hash
 *       time that admission uses);</li>
 *   <li>in a JVM, {@code identity.readiness.self-requests} real requests through the service's own listener
 *       ({@link SelfRequests}), shaped like a storm's answers that need no bcrypt: unknown devices (the read and
 *       its denial), the same unknown device again (denied from memory), a malformed body (400) and an authz
 *       question, so that the JIT compiles the libraries every answer crosses before the first storm instead of
 *       during it.</li>
 * </ol>
 * The warm-up devices are random ids that no one registered; their denials are neither logged nor counted as
 * outcomes (that happens at the HTTP answer, which the warm-up does not write).
 */
@ApplicationScoped
public class AuthWarmUp implements WarmUpPlan {

    static final int READS = 5;
    static final int HASHES = 3;
    private static final String PASSWORD = "warm-up-not-a-credential";
    private static final String SELF_REQUEST_IDS = UUID.randomUUID().toString();

    private final Authenticator authenticator;
    private final Lane bcrypt;
    private final DataSource reads;
    private final DataSource verifiers;
    private final ObjectMapper json;
    private final OverloadConfig overload;
    private final SelfRequests selfRequests;
    private final ReadinessConfig readiness;
    private final MutualTlsConfig mutualTls;

    public AuthWarmUp(Authenticator authenticator, @BcryptWork Lane bcrypt, DataSource reads,
            @io.quarkus.agroal.DataSource("verifiers") AgroalDataSource verifiers, ObjectMapper json,
            OverloadConfig overload, SelfRequests selfRequests, ReadinessConfig readiness, MutualTlsConfig mutualTls) {
        this.selfRequests = selfRequests;
        this.readiness = readiness;
        this.mutualTls = mutualTls;
        this.verifiers = verifiers;
        this.authenticator = authenticator;
        this.bcrypt = bcrypt;
        this.reads = reads;
        this.json = json;
        this.overload = overload;
    }

    @Override
    public List<WarmUpStep> steps() {
        return List.of(
                WarmUp.pooledConnection("pool", reads),
                WarmUp.pooledConnection("verifiers pool", verifiers),
                WarmUpStep.of("authn", this::authenticateUnknownDevices),
                WarmUpStep.of("bcrypt", this::hash),
                selfRequests.step(selfRequestCount(), readiness.selfRequestConnections(), AuthWarmUp::stormShaped));
    }

    /**
     * None with mutual TLS required (the service's own client has no certificate to present), nor when the warm-up
     * runs inside the start event (the test profiles), which comes before the listener opens.
     */
    private int selfRequestCount() {
        boolean listening = readiness.warmUpInBackground();
        boolean ownClientAccepted = mutualTls.clientAuth() != MutualTlsConfig.ClientAuthentication.REQUIRED;
        return listening && ownClientAccepted ? readiness.selfRequests() : 0;
    }

    /**
     * The {@code i}-th self-request: of every 8, five unknown devices from as many addresses (a source's failure
     * budget would otherwise deny the rest before the read), one repeat, one malformed body, one authz question.
     * The addresses are in 198.18.0.0/15 (RFC 2544, benchmarking), which no device connects from.
     */
    static SelfRequests.Request stormShaped(int i) {
        // Random per process, so that no registered device is ever one of them (and charged a wrong password).
        String clientId = "warm-up-" + SELF_REQUEST_IDS + "-" + (i % 8 == 5 ? i - 1 : i);
        String peer = "198.18." + ((i >> 8) & 0xff) + "." + (i & 0xff);
        return switch (i % 8) {
            case 6 -> new SelfRequests.Request("/mqtt/authn", "{\"clientid\":");
            case 7 -> new SelfRequests.Request("/mqtt/authz", "{\"clientid\":\"" + clientId + "\",\"username\":\"\","
                    + "\"action\":\"publish\",\"topic\":\"devices/" + clientId + "/up\",\"qos\":\"1\","
                    + "\"retain\":\"false\",\"peerhost\":\"" + peer + "\"}");
            default -> new SelfRequests.Request("/mqtt/authn", "{\"clientid\":\"" + clientId
                    + "\",\"username\":\"\",\"password\":\"" + PASSWORD + "\",\"peerhost\":\"" + peer + "\"}");
        };
    }

    private void authenticateUnknownDevices() throws Exception {
        for (int i = 0; i < READS; i++) {
            // A fresh id each time: the attempt limiter takes one attempt per denial of the same id.
            String body = "{\"clientid\":\"warm-up-" + UUID.randomUUID() + "\",\"username\":\"\",\"password\":\""
                    + PASSWORD + "\",\"peerhost\":\"127.0.0.1\",\"cert_common_name\":\"\"}";
            AuthnRequest request = AuthnRequest.from(JsonBodies.emqxObject(json,
                    body.getBytes(StandardCharsets.UTF_8), MediaType.APPLICATION_JSON));
            WarmUp.await(authenticator.authenticate(request, deadline(), null));
        }
    }

    private void hash() throws Exception {
        double units = CheckCost.bcrypt(Bcrypt.DEFAULT_COST);
        String stored = WarmUp.await(bcrypt.submit(deadline(), units, () -> Bcrypt.hash(PASSWORD, Bcrypt.DEFAULT_COST)));
        for (int i = 0; i < HASHES; i++) {
            if (!WarmUp.await(bcrypt.submit(deadline(), units, () -> Bcrypt.matches(PASSWORD, stored)))) {
                throw new IllegalStateException("bcrypt did not verify its own hash");
            }
        }
    }

    private Deadline deadline() {
        return Deadline.after(System.nanoTime(), overload.deadline());
    }
}
