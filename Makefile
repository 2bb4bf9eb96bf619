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

# --- Kubernetes (kind / minikube) --------------------------------------------------------------------------------
# Needs docker, kind (or minikube: CLUSTER_TOOL=minikube), kubectl and helm; none of them is needed by `make test`,
# which renders and checks the chart with embedded Helm (module helm/). See README "Kubernetes" and k8s/kind.sh.
.PHONY: images kind-up kind-down load storm

## images: build the auth-service, registration-service and loadtest images (tag = the chart's appVersion)
images:
	k8s/kind.sh images

## kind-up: create the kind cluster, build and load the images, helm install the chart, run helm test
kind-up:
	k8s/kind.sh up

## load: run the load generator as a Job in the cluster and copy its report to target/k8s-report/
load:
	k8s/kind.sh load

## storm: an emqtt-bench MQTT connection storm through EMQX (distinct client-id range per pod)
storm:
	k8s/kind.sh storm

## kind-down: delete the kind cluster
kind-down:
	k8s/kind.sh down
