-- Device credentials: one row per MQTT client id.
-- Migrated by Flyway directly against PostgreSQL, never through PgBouncer (transaction pooling breaks
-- session-level features that migrations rely on).
CREATE TABLE device_credentials (
    client_id     varchar(128) PRIMARY KEY,
    username      varchar(256),
    -- bcrypt modular-crypt string ($2a$/$2b$/$2y$, 60 characters); never returned by any API.
    password_hash varchar(60)  NOT NULL,
    status        varchar(16)  NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'revoked')),
    superuser     boolean      NOT NULL DEFAULT false,
    -- EMQX authn-response ACL rules; NULL means the default rules for the device.
    acl           jsonb        CHECK (acl IS NULL OR jsonb_typeof(acl) = 'array'),
    created_at    timestamptz  NOT NULL DEFAULT now(),
    updated_at    timestamptz  NOT NULL DEFAULT now()
);

COMMENT ON TABLE device_credentials IS 'MQTT device credentials checked by auth-service, written by registration-service';
