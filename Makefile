# Device Identity Service. `make up` runs the local stack, `make test` runs every test against real
# PostgreSQL + PgBouncer. See README.md and docs/.
SHELL := /bin/bash
MVN ?= mvn -B

.PHONY: up restart down status install-deps test test-busy test-db-up test-db-down native-sources native-analysis native native-it native-container native-test

comma := ,
space := $(subst ,, )

## up: PostgreSQL + PgBouncer + the services on loopback, migrated and seeded with demo devices. Builds only what
## changed, restarts a running service whose jar or environment changed (docs/local.md). DB_HA=1: the database is three
## PostgreSQL members under Patroni behind HAProxy instead (docs/database-ha.md).
## The ports are checked first: a conflict is named before anything is installed, built or started.
up:
	scripts/stack.sh check-ports
	$(MAKE) --no-print-directory install-deps
	scripts/stack.sh up

## restart: stop the services and `make up` again (PostgreSQL and PgBouncer keep running)
restart:
	scripts/stack.sh restart

## down: stop everything `make up` started
down:
	scripts/stack.sh down

## status: what runs, on which ports, and where the logs are
status:
	scripts/stack.sh status

## install-deps: install what `make test` and `make test-busy` need beyond a JDK and Maven (PostgreSQL, PgBouncer,
## Mosquitto, jq, stress-ng, ...), only what is missing: as root, else through `sudo -n`, else it names the command
## to run. The one install entry point; .ci/run and ci.yml call it (scripts/install.sh).
install-deps:
	scripts/install.sh

# The test stack has its own ports so that `make test` never touches what `make up` runs.
TEST_PG_PORT ?= 55433
TEST_PGBOUNCER_PORT ?= 56433
TEST_STACK := PG_PORT=$(TEST_PG_PORT) PGBOUNCER_PORT=$(TEST_PGBOUNCER_PORT) scripts/stack.sh
# The test stack is TLS-only: the tests verify its servers against the CA it made (wherever its STACK_DIR is).
TEST_DB_CA = -Dtest.db.ca="$$($(TEST_STACK) db-ca test)"

## test: start the test PostgreSQL + PgBouncer, run every module's tests against them (unit, @QuarkusTest, and the
## @QuarkusIntegrationTest suites against the packaged JARs), stop them (also when a test fails: a stack left running
## would hold its ports against the next checkout's run), then the native-sources build and the native analysis of
## the services. `make test-db-up` keeps one running for targeted test runs.
test: install-deps
	$(TEST_STACK) db-up test
	$(MVN) verify -Dtest.pg.port=$(TEST_PG_PORT) -Dtest.pgbouncer.port=$(TEST_PGBOUNCER_PORT) $(TEST_DB_CA) \
	  || { status=$$?; $(TEST_STACK) db-down test; exit $$status; }
	$(TEST_STACK) db-down test
	$(MAKE) --no-print-directory native-sources
	$(MAKE) --no-print-directory native-analysis

## test-busy: the identity-core and auth-service suites while stress-ng keeps every core busy: no verdict may depend
## on a quiet machine. stress-ng is stopped afterwards, also when a test fails (scripts/test-busy.sh)
test-busy:
	TEST_PG_PORT=$(TEST_PG_PORT) TEST_PGBOUNCER_PORT=$(TEST_PGBOUNCER_PORT) MVN="$(MVN)" scripts/test-busy.sh

# The Quarkus services among the root pom's modules (registration-service is picked up once it is listed there).
SERVICES := $(filter auth-service registration-service,$(shell sed -n 's:.*<module>\(.*\)</module>.*:\1:p' pom.xml))

## native-sources: everything of the native build that needs no GraalVM: Quarkus's build steps, reflection and
## resource registration, and native-image.args in <service>/target/native-sources/. Catches build-time native
## problems on machines without GraalVM or Docker. Runs after `verify` in `make test` and leaves the JVM build in
## target/quarkus-app alone (no JAR packaging), so `make up` and the images still find it.
native-sources:
	$(MVN) package -DskipTests -pl $(subst $(space),$(comma),$(SERVICES)) -am \
	  -Dquarkus.native.enabled=true -Dquarkus.native.sources-only=true -Dquarkus.package.jar.enabled=false

## native-analysis: GraalVM's points-to analysis and image-heap scan of each service, from its native-sources, with
## the builder from Maven Central on the machine's Temurin 25 (scripts/native-image.sh, docs/native.md): every
## error a full native build reports at analysis time (a random generator or thread in the image heap, a class that
## does not link, an unsupported feature reached), in about half a full build's time. One service at a time: each
## takes up to ~4.7 GB of memory. Needs `native-sources` first (`make test` runs both).
native-analysis:
	native/c/test.sh
	$(foreach service,$(SERVICES),scripts/native-image.sh analyse $(service) && ) true

## native: native executables of the services on this machine, with no container engine: the GraalVM builder from
## Maven Central on the machine's Temurin 25 and the project's C layer (native/c/, docs/native.md), for proof and
## measurement. <service>/target/native/<service>-<version>-runner, with the shared libraries it loads beside it.
## About 6 minutes and 4.7 GB of memory per service, one at a time. `make native-it` then tests them.
native: native-sources
	$(foreach service,$(SERVICES),scripts/native-image.sh build $(service) && ) true

## native-it: the integration tests (*IT: the @QuarkusIntegrationTest suites and the tests that start the packaged
## service themselves) of the services against the executables `make native` linked, <service>/target/native/, on the
## test stack. Nothing is rebuilt: no container, no JVM build, no native image, and no unit or @QuarkusTest tests
## (`make test` runs those). Refuses an executable that is missing or was built from other sources (docs/native.md).
native-it:
	$(foreach service,$(SERVICES),scripts/native-image.sh artifact $(service) && ) true
	$(TEST_STACK) db-up test
	$(MVN) verify -pl $(subst $(space),$(comma),$(SERVICES)) -am -Plocal-native -Dtest.pg.port=$(TEST_PG_PORT) \
	  -Dtest.pgbouncer.port=$(TEST_PGBOUNCER_PORT) $(TEST_DB_CA)

## native-container: the shipped native executables, compiled inside the Mandrel builder image (needs Docker or
## Podman): <service>/target/<service>-<version>-runner, what Dockerfile.native packages
native-container:
	$(MVN) package -DskipTests -pl $(subst $(space),$(comma),$(SERVICES)) -am \
	  -Dquarkus.native.enabled=true -Dquarkus.native.container-build=true

## native-test: `native-container`, then the @QuarkusIntegrationTest suites against the native executables, on the test stack
## (the JVM-mode unit and @QuarkusTest tests are skipped: `make test` runs them)
native-test:
	$(TEST_STACK) db-up test
	$(MVN) verify -pl $(subst $(space),$(comma),$(SERVICES)) -am -Dtest.pg.port=$(TEST_PG_PORT) \
	  -Dtest.pgbouncer.port=$(TEST_PGBOUNCER_PORT) $(TEST_DB_CA) -Dquarkus.native.enabled=true -Dquarkus.native.container-build=true \
	  "-Dtest=!*" -Dsurefire.failIfNoSpecifiedTests=false

test-db-up:
	$(TEST_STACK) db-up test

## size: what a fleet needs (auth-service replicas and CPU requests, PgBouncer and PostgreSQL connections, EMQX
## pool_size) and the chart values that deploy it, from the chart's formulas and the last `make bench` (else
## docs/figures.json; BENCH_OUT= another bench output): make size DEVICES=1000000 WINDOW=900 [KNOWN=0.9] [AUTH_CPU=1]
## [EMQX_NODES=3] [PIPELINING=1] [PGBOUNCER_REPLICAS=2] [MAX_REPLICAS=] [VALUES_OUT=sized-values.yaml] (docs/sizing.md)
.PHONY: size
size:
	python3 scripts/size.py --devices "$(DEVICES)" --window "$(WINDOW)" $(if $(KNOWN),--known "$(KNOWN)") $(if $(BENCH_OUT),--bench "$(BENCH_OUT)") \
	  $(if $(AUTH_CPU),--auth-cpu "$(AUTH_CPU)") $(if $(EMQX_NODES),--emqx-nodes "$(EMQX_NODES)") $(if $(PIPELINING),--pipelining "$(PIPELINING)") \
	  $(if $(PGBOUNCER_REPLICAS),--pgbouncer-replicas "$(PGBOUNCER_REPLICAS)") $(if $(MAX_REPLICAS),--max-replicas "$(MAX_REPLICAS)") \
	  $(if $(VALUES_OUT),--values-out "$(VALUES_OUT)")

## chaos: real faults (PgBouncer/PostgreSQL killed, frozen, exhausted; services SIGKILLed/SIGTERMed) and hostile
## input under a steady load, on its own stack (ports 55435/56435/8093/8094); table + target/chaos/ (scripts/chaos.sh).
## CHAOS_ONLY=failover: the leader of a replicated database SIGKILLed under load (docs/database-ha.md)
.PHONY: chaos
chaos:
	scripts/chaos.sh

## fuzz: every Jazzer @FuzzTest (request parsers, client ids, ACL rules, bearer headers) mutated for 30 s each;
## `make test` replays their committed inputs. Needs no database (scripts/fuzz.sh).
.PHONY: fuzz
fuzz:
	scripts/fuzz.sh

test-db-down:
	$(TEST_STACK) db-down test

# --- Kubernetes (kind / minikube) --------------------------------------------------------------------------------
# Needs docker, kind (or minikube: CLUSTER_TOOL=minikube), kubectl and helm; none of them is needed by `make test`,
# which renders and checks the chart with embedded Helm (module helm/). See docs/kubernetes.md and k8s/kind.sh.
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

## qos2-probe: the MQTT QoS 2 probe Job across two EMQX pods, with the auth checks (fails on a lost or duplicated
## message or a failed check); its JSON summary goes to target/k8s-report/qos2-probe.json
.PHONY: qos2-probe
qos2-probe:
	k8s/kind.sh qos2-probe

## kind-down: delete the kind cluster
kind-down:
	k8s/kind.sh down

# --- Benchmarks -------------------------------------------------------------------------------------------------
# Not part of `make test`: prints figures and asserts nothing. Own stack (STACK_DIR .local/bench, ports 55434/56434,
# auth-service 8091, replicas 8092-8094), so it never touches what `make up` or `make test` run. Takes about 40
# minutes on 2 cores (the overload curve and the fast path ~20, the pod-shaped points ~20; build included). Overrides: PG_PORT, PGBOUNCER_PORT, AUTH_PORT, STACK_DIR, BENCH_POINT_DURATION,
# BENCH_LOADS, BENCH_OVERLOAD, BENCH_ONLY, BENCH_JMH=1 (adds the bcrypt JMH benchmark), ... (scripts/bench.sh).
.PHONY: bench

## bench: overload curve (capacity; protected at 1-12x; unprotected, 64 connections, backoff devices, a step at 8x)
bench:
	scripts/bench.sh
