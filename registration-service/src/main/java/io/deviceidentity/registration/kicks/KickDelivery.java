package io.deviceidentity.registration.kicks;

import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.jboss.logging.Logger;

/**
 * One replica's delivery of the kick outbox: claim what is due, call EMQX for each (in parallel, no database
 * connection held meanwhile), then delete what EMQX answered and push back what failed, with exponential backoff.
 *
 * <p>At least once, and harmless when more: a row is deleted only after EMQX answered, so a crash anywhere before
 * leaves it to be sent again (by this replica after a restart, or by another one when the claim's lease ends), and a
 * second kick of a client that is gone is a 404, "nothing to kick", which also deletes it. Time comes from the
 * given clock, so tests drive backoff and leases on a virtual one.
 */
public final class KickDelivery {

    private static final Logger LOG = Logger.getLogger(KickDelivery.class);

    private final KickOutbox outbox;
    private final EmqxClientsApi emqx;
    private final KickMetrics metrics;
    private final Clock clock;
    private final RetryBackoff backoff;
    private final Duration lease;
    private final Duration requestTimeout;
    private final int batchSize;

    public KickDelivery(KickOutbox outbox, EmqxClientsApi emqx, KickMetrics metrics, Clock clock, RetryBackoff backoff,
            Duration requestTimeout, int batchSize) {
        this.outbox = outbox;
        this.emqx = emqx;
        this.metrics = metrics;
        this.clock = clock;
        this.backoff = backoff;
        this.requestTimeout = requestTimeout;
        // A claim must outlive the slowest answer of its batch (sent in parallel) with room to write the result;
        // a replica that has not finished by then is taken for dead and another one sends the kick again.
        this.lease = requestTimeout.multipliedBy(2).plusSeconds(5);
        this.batchSize = batchSize;
    }

    /**
     * One round: claims up to a batch of due kicks and delivers them; returns how many it claimed (a full batch
     * means more may be due at once).
     */
    public int deliverDue() throws SQLException {
        Instant now = clock.instant();
        List<KickOutbox.Claimed> claimed = outbox.claim(now, now.plus(lease), batchSize);
        List<CompletableFuture<KickResult>> answers = new ArrayList<>(claimed.size());
        for (KickOutbox.Claimed kick : claimed) {
            answers.add(emqx.kick(kick.clientId())
                    .completeOnTimeout(KickResult.failed("timeout"), requestTimeout.toMillis() * 2,
                            TimeUnit.MILLISECONDS));
        }
        for (int i = 0; i < claimed.size(); i++) {
            record(claimed.get(i), answers.get(i).join());
        }
        return claimed.size();
    }

    private void record(KickOutbox.Claimed kick, KickResult result) throws SQLException {
        if (result.delivered()) {
            outbox.delivered(kick.id());
            metrics.delivered(result);
            LOG.infof("kick delivered: client_id=%s reason=%s result=%s attempts=%d", kick.clientId(), kick.reason(),
                    result.outcome(), kick.attempts());
            return;
        }
        Instant next = clock.instant().plus(backoff.after(kick.attempts()));
        outbox.retryAt(kick.id(), next, result.outcome());
        metrics.failed(result.outcome());
        // The first failure and then every tenth: an EMQX that stays down must not flood the log.
        if (kick.attempts() == 1 || kick.attempts() % 10 == 0) {
            LOG.warnf("kick not delivered: client_id=%s reason=%s failure=%s attempts=%d next_attempt=%s",
                    kick.clientId(), kick.reason(), result.outcome(), kick.attempts(), next);
        }
    }

    /** Reads the backlog into the metrics. */
    public KickOutbox.Backlog refreshBacklog() throws SQLException {
        KickOutbox.Backlog backlog = outbox.backlog();
        metrics.backlog(backlog);
        return backlog;
    }
}
