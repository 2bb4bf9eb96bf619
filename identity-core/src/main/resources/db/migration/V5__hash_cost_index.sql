-- The report of weak hashes (registration-service, GET /v1/device-reports/weak-hashes): active devices whose bcrypt
-- cost is below the one the service hashes with, for rotation after an import of an old store's hashes.
-- The cost is the two digits after "$2a$" / "$2b$" / "$2y$"; compared as text ('04' < '10'), so a row whose hash is
-- not bcrypt (only ever written by hand) can never make a write fail on this index. Keyed (cost, client_id), the
-- report's order, so that each page is one index range scan however few of the rows are weak.
-- Built inside the migration's transaction: on a large table this blocks writes while it is built; to avoid that,
-- run `CREATE INDEX CONCURRENTLY` with this very definition by hand before upgrading (IF NOT EXISTS keeps it).
CREATE INDEX IF NOT EXISTS device_credentials_hash_cost
    ON device_credentials ((substr(password_hash, 5, 2)), client_id)
    WHERE status = 'active';
