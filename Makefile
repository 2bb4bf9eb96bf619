# Device Identity Service. `make up` runs the local stack, `make test` runs every test against real
# PostgreSQL + PgBouncer. See README.md.
SHELL := /bin/bash
MVN ?= mvn -B

.PHONY: up down status test test-db-up test-db-down

## up: PostgreSQL + PgBouncer + the services on loopback, migrated and seeded with demo devices
up:
	scripts/stack.sh up

## down: stop everything `make up` started
down:
	scripts/stack.sh down

status:
	scripts/stack.sh status

# The test stack has its own ports so that `make test` never touches what `make up` runs.
TEST_PG_PORT ?= 55433
TEST_PGBOUNCER_PORT ?= 56433
TEST_STACK := PG_PORT=$(TEST_PG_PORT) PGBOUNCER_PORT=$(TEST_PGBOUNCER_PORT) scripts/stack.sh

## test: start the test PostgreSQL + PgBouncer and run every module's tests against them
test:
	$(TEST_STACK) db-up test
	$(MVN) verify -Dtest.pg.port=$(TEST_PG_PORT) -Dtest.pgbouncer.port=$(TEST_PGBOUNCER_PORT)

test-db-up:
	$(TEST_STACK) db-up test

test-db-down:
	$(TEST_STACK) db-down test

# --- Benchmarks -------------------------------------------------------------------------------------------------
# Not part of `make test`: prints figures and asserts nothing. Own stack (STACK_DIR .local/bench, ports 55434/56434,
# auth-service 8091), so it never touches what `make up` or `make test` run. Takes 5-8 minutes on 2 cores.
# Overrides: PG_PORT, PGBOUNCER_PORT, AUTH_PORT, STACK_DIR, BENCH_DURATION, BENCH_OVERLOAD, ... (scripts/bench.sh).
.PHONY: bench

## bench: incident replay (capacity, unprotected vs protected, backoff devices) and the bcrypt JMH benchmark
bench:
	scripts/bench.sh
