-- pgbench script for `make bench` (scripts/bench.sh, the known-device reconnect storm): auth-service's own credential
-- read, exactly the statement of identity-core CredentialRows.SELECT_WITH_VERIFIER_BY_CLIENT_ID (the row with the
-- fast path's verifier columns, one primary-key lookup), for a random one of the devices bench.sh seeds as
-- bench-known-1 .. bench-known-<devices> (pgbench -D devices=20000).
--
-- The client id is built in SQL ('bench-known-' || :id) because pgbench variables are numbers; PostgreSQL folds the
-- expression into a constant before planning (simple protocol) or at bind time (extended protocol, unnamed statement
-- planned with its parameter), so it is the same index scan the service's `client_id = $1` gets.
\set id random(1, :devices)
SELECT client_id, username, password_hash, status, superuser, acl::text, created_at, updated_at, verifier_key_id, verifier FROM device_credentials WHERE client_id = 'bench-known-' || :id;
