-- The kick outbox (issue #24): a revocation or a password change must also end the device's live MQTT session,
-- which only EMQX can do (DELETE /api/v5/clients/{clientid}). registration-service writes one row here in the SAME
-- statement (so the same transaction) as the change, and its delivery worker calls EMQX and deletes the row once
-- EMQX answered 204 (kicked) or 404 (not connected: nothing to kick). A crash between the commit and the call leaves
-- the row, and any replica delivers it later: at least once, and a repeated kick finds nobody (404).
--
-- Owned by registration-service's role, which runs this migration; auth-service's role gets nothing here.
CREATE TABLE device_kicks (
    id              bigserial    PRIMARY KEY,
    client_id       varchar(128) NOT NULL,
    -- what changed: 'revoked' (DELETE /v1/devices/{id}) or 'rekeyed' (PUT replacing an existing device)
    reason          varchar(16)  NOT NULL CHECK (reason IN ('revoked', 'rekeyed')),
    created_at      timestamptz  NOT NULL DEFAULT now(),
    -- delivery attempts so far; a claim counts as one
    attempts        integer      NOT NULL DEFAULT 0,
    -- NULL: due now. Otherwise not before this time: a claimed row's lease (a replica is delivering it) or the
    -- backoff after a failed attempt. The worker claims due rows with FOR UPDATE SKIP LOCKED inside one statement.
    next_attempt_at timestamptz,
    -- why the last attempt failed (a short code such as unreachable, timeout, status_503, unauthorized), never a body
    last_error      varchar(32)
);

CREATE INDEX device_kicks_due ON device_kicks (next_attempt_at NULLS FIRST, id);

COMMENT ON TABLE device_kicks IS 'Sessions to end at EMQX after a revocation or password change (outbox; registration-service)';
