{{/*
The chain's invariants. Each broken one adds a message that names the numbers and the values to change; the render
fails with all of them at once (templates/validate.yaml). README "Kubernetes" lists them in a table.
*/}}
{{- define "device-identity.validate" -}}
{{- $v := .Values -}}
{{- $auth := include "device-identity.authSizing" . | fromJson -}}
{{- $reg := include "device-identity.registrationSizing" . | fromJson -}}
{{- $errors := list -}}

{{/* 0. An external database needs a password source: a generated one is a password that database does not know. */}}
{{- if and (not $v.postgresql.enabled) (not $v.database.password) (not $v.database.existingSecret) -}}
{{- $errors = append $errors "database: postgresql.enabled=false but neither database.existingSecret nor database.password is set: the chart would generate a random password that your PostgreSQL does not know. Create the role and database (docs/kubernetes.md, \"Your own PostgreSQL\"), put the role's password in a Secret (kubectl -n <namespace> create secret generic identity-db --from-literal=password=...) and set database.existingSecret=identity-db, or set database.password." -}}
{{- end -}}

{{/* 0a. CloudNativePG runs the chart's own PostgreSQL: its Services listen on 5432, its roles' Secrets hold username and
password, and a synchronous standby must exist for a commit to return. */}}
{{- $cnpg := $v.postgresql.cnpg -}}
{{- if and $cnpg.enabled (not $v.postgresql.enabled) -}}
{{- $errors = append $errors "database: postgresql.cnpg.enabled needs postgresql.enabled=true: the CloudNativePG Cluster is the chart's own PostgreSQL. For a database you run yourself keep cnpg off and set postgresql.external.host." -}}
{{- end -}}
{{- if and $cnpg.standbyReads.enabled (not (include "device-identity.cnpg" .)) -}}
{{- $errors = append $errors "database: postgresql.cnpg.standbyReads.enabled needs postgresql.cnpg.enabled: the standby reads go through a Pooler in front of the Cluster's -ro Service." -}}
{{- end -}}
{{- if include "device-identity.cnpg" . -}}
{{- if ne ($v.postgresql.port | int) 5432 -}}
{{- $errors = append $errors (printf "database: postgresql.port is %v but CloudNativePG's Services listen on 5432: set postgresql.port=5432." $v.postgresql.port) -}}
{{- end -}}
{{- if and $v.database.existingSecret (ne $v.database.existingSecretKey "password") -}}
{{- $errors = append $errors (printf "database: database.existingSecretKey is %q but CloudNativePG reads the owner's password from the key \"password\" (and its name from \"username\") of database.existingSecret: rename the key and set database.existingSecretKey=password." $v.database.existingSecretKey) -}}
{{- end -}}
{{- if and $cnpg.standbyReads.enabled (lt ($cnpg.synchronous.number | int) (sub ($cnpg.instances | int) 1 | int)) -}}
{{- $errors = append $errors (printf "database: postgresql.cnpg.standbyReads.enabled needs every standby synchronous (postgresql.cnpg.synchronous.number = instances - 1 = %d, not %v): the -ro Service reaches any standby, and auth-service's check proves only that a standby replayed what it received, while a commit is acknowledged once %v standbys have it, so another standby could still lack an acknowledged revocation. Set synchronous.number, or keep standby reads off." (sub ($cnpg.instances | int) 1) $cnpg.synchronous.number $cnpg.synchronous.number) -}}
{{- end -}}
{{- if ge ($cnpg.synchronous.number | int) ($cnpg.instances | int) -}}
{{- $errors = append $errors (printf "database: postgresql.cnpg.synchronous.number %v needs at least %v instances (one primary plus the synchronous standbys), but postgresql.cnpg.instances is %v: with dataDurability required every commit would wait forever. Raise instances or lower number." $cnpg.synchronous.number (add1 ($cnpg.synchronous.number | int)) $cnpg.instances) -}}
{{- end -}}
{{- end -}}

{{/* 0b. Kicks to an EMQX this chart does not deploy need that EMQX's API key. */}}
{{- if and $v.registrationService.kicks.enabled $v.registrationService.kicks.emqxApiUrl (not $v.registrationService.kicks.existingSecret) -}}
{{- $errors = append $errors "kicks: registrationService.kicks.emqxApiUrl is set but registrationService.kicks.existingSecret is not: registration-service needs an API key of that EMQX to kick revoked devices. Create one in EMQX (api_key.bootstrap_file, or the dashboard), put it in a Secret (kubectl -n <namespace> create secret generic emqx-api --from-literal=key=... --from-literal=secret=...) and set registrationService.kicks.existingSecret=emqx-api, or unset emqxApiUrl." -}}
{{- end -}}

{{/* 1. Timeouts: service deadline < worst-case answer time < EMQX request_timeout. */}}
{{- $bcryptWorst := mulf ($v.bcrypt.millis | float64) ($v.bcrypt.worstCaseFactor | float64) | ceil | int64 -}}
{{- $writeMs := include "device-identity.millis" $v.authService.answerWriteMargin | int64 -}}
{{- $authDeadline := $auth.deadlineMs | int64 -}}
{{- $worst := add $authDeadline $bcryptWorst $writeMs -}}
{{- $authnTimeout := include "device-identity.millis" $v.emqx.authn.requestTimeout | int64 -}}
{{- if ge $worst $authnTimeout -}}
{{- $errors = append $errors (printf "timeouts: auth-service's worst-case answer is deadline %dms + one bcrypt %dms (bcrypt.millis %v x bcrypt.worstCaseFactor %v) + write margin %dms = %dms, which is not below EMQX's authn request_timeout %dms: EMQX would give up on answers the service still computes. Lower authService.overload.deadline or raise emqx.authn.requestTimeout." $authDeadline $bcryptWorst $v.bcrypt.millis $v.bcrypt.worstCaseFactor $writeMs $worst $authnTimeout) -}}
{{- end -}}
{{- if $v.emqx.authz.enabled -}}
{{- $authzTimeout := include "device-identity.millis" $v.emqx.authz.requestTimeout | int64 -}}
{{- if ge $worst $authzTimeout -}}
{{- $errors = append $errors (printf "timeouts: auth-service's worst-case answer %dms is not below EMQX's authz request_timeout %dms. Lower authService.overload.deadline or raise emqx.authz.requestTimeout." $worst $authzTimeout) -}}
{{- end -}}
{{- end -}}
{{- range $name, $s := dict "authService" $auth "registrationService" $reg -}}
{{- $acq := include "device-identity.millis" (index $v $name).db.acquisitionTimeout | int64 -}}
{{- if ge $acq ($s.deadlineMs | int64) -}}
{{- $errors = append $errors (printf "timeouts: %s.db.acquisitionTimeout %dms is not shorter than its deadline %dms: a request could wait for a connection past the time anyone reads its answer. Lower %s.db.acquisitionTimeout." $name $acq ($s.deadlineMs | int64) $name) -}}
{{- end -}}
{{- end -}}
{{- $qwt := include "device-identity.millis" $v.pgbouncer.queryWaitTimeout | int64 -}}
{{- $minDeadline := min ($auth.deadlineMs | int64) ($reg.deadlineMs | int64) -}}
{{- if ge $qwt $minDeadline -}}
{{- $errors = append $errors (printf "timeouts: pgbouncer.queryWaitTimeout %dms is not shorter than the shortest service deadline %dms: a starved query would be cut off only after nobody waits for it. Lower pgbouncer.queryWaitTimeout." $qwt $minDeadline) -}}
{{- end -}}

{{/*
2. Client connections at HPA maximum vs PgBouncer's max_client_conn (with headroom for uneven spreading). Each
auth-service replica holds one connection more than its pool: the fast path's verifier writer has its own datasource
(max-size 1). It is counted whether or not the fast path is on (the datasource exists either way).
*/}}
{{- $authPerReplica := add ($auth.pool | int64) 1 -}}
{{- $authConns := mul ($auth.maxReplicas | int64) $authPerReplica -}}
{{- $regConns := mul ($reg.maxReplicas | int64) ($reg.pool | int64) -}}
{{- $clients := add $authConns $regConns -}}
{{- $clientCap := div (mul ($v.pgbouncer.replicas | int64) ($v.pgbouncer.maxClientConn | int64) (sub 100 ($v.pgbouncer.clientHeadroomPercent | int64))) 100 -}}
{{- if gt $clients $clientCap -}}
{{- $errors = append $errors (printf "connections: at HPA maximum auth-service opens %d replicas x (pool %d + 1 verifier writer) = %d and registration-service %d x %d = %d client connections, %d in all, but PgBouncer admits %d replicas x max_client_conn %d less %d%% headroom = %d. Raise pgbouncer.maxClientConn or pgbouncer.replicas, or lower the services' autoscaling.maxReplicas or db.poolMaxSize." ($auth.maxReplicas | int64) ($auth.pool | int64) $authConns ($reg.maxReplicas | int64) ($reg.pool | int64) $regConns $clients ($v.pgbouncer.replicas | int64) ($v.pgbouncer.maxClientConn | int64) ($v.pgbouncer.clientHeadroomPercent | int64) $clientCap) -}}
{{- end -}}

{{/*
3. Server connections: PgBouncer's pools plus the direct migration connections vs PostgreSQL max_connections.
PgBouncer keeps one pool per database/user pair and there are two users (registration-service's database.user and
auth-service's database.auth.user), each pool up to default_pool_size + reserve_pool_size.
*/}}
{{- $users := 2 -}}
{{- $perBouncer := mul $users (add ($v.pgbouncer.defaultPoolSize | int64) ($v.pgbouncer.reservePoolSize | int64)) -}}
{{- $bouncerServers := mul ($v.pgbouncer.replicas | int64) $perBouncer -}}
{{- $migration := mul ($reg.maxReplicas | int64) ($v.registrationService.db.migrationConnections | int64) -}}
{{- $servers := add $bouncerServers $migration -}}
{{- $serverCap := sub ($v.postgresql.maxConnections | int64) ($v.postgresql.reservedConnections | int64) -}}
{{- if gt $servers $serverCap -}}
{{- $errors = append $errors (printf "connections: PgBouncer can open %d replicas x %d users (database.user, database.auth.user: one pool each) x (default_pool_size %d + reserve_pool_size %d) = %d server connections and registration-service's migrations %d x %d = %d more, %d in all, but PostgreSQL allows max_connections %d - reserved %d = %d. Lower pgbouncer.defaultPoolSize or pgbouncer.replicas, or raise postgresql.maxConnections." ($v.pgbouncer.replicas | int64) $users ($v.pgbouncer.defaultPoolSize | int64) ($v.pgbouncer.reservePoolSize | int64) $bouncerServers ($reg.maxReplicas | int64) ($v.registrationService.db.migrationConnections | int64) $migration $servers ($v.postgresql.maxConnections | int64) ($v.postgresql.reservedConnections | int64) $serverCap) -}}
{{- end -}}

{{/*
4. In-flight authn (README "Overload control", "The values that matter"): what EMQX can send at once must be LARGER than what the auth tier admits at the
largest replica count the HPA may choose, plus headroom for the refused requests in flight. If EMQX could send no
more than the service admits, the excess would wait in EMQX's own unbounded per-connection FIFO, where EMQX's
request_timeout (its clock starts in that queue) runs out and the answers arrive too late to be read; with more, the
excess reaches a replica that answers 503 at once. The former "in-flight ≥ bcrypt threads at HPA maximum" check is
subsumed (admitted ≥ threads), and the former "in-flight ≤ admitted at minReplicas" check demanded the opposite.
*/}}
{{- $f := include "device-identity.authnInFlight" . | fromJson -}}
{{- if lt ($f.inflight | int64) ($f.required | int64) -}}
{{- $perNode := mul ($f.nodes | int64) ($f.pipelining | int64) -}}
{{- $minPool := div (add ($f.required | int64) $perNode -1) $perNode -}}
{{- $at := "at its HPA maximum, authService.autoscaling.maxReplicas" -}}
{{- if not $v.authService.autoscaling.enabled -}}{{- $at = "autoscaling off, authService.replicas" -}}{{- end -}}
{{- $errors = append $errors (printf "in-flight: EMQX can send at most %d nodes x pool_size %d x pipelining %d = %d authn requests at once, but auth-service admits %d replicas (%s) x (bcrypt concurrency %d + queue %d) = %d, and EMQX must be able to send more than that: %d + %d%% headroom (emqx.authn.inFlightHeadroomPercent) = %d. Otherwise the excess waits in EMQX's own queue until its request_timeout runs out, instead of reaching a replica that refuses it at once. Raise emqx.authn.poolSize to at least %d (or leave it empty: the chart derives it) or emqx.authn.pipelining, or lower authService.autoscaling.maxReplicas or authService.overload.bcrypt.maxWait / queue." ($f.nodes | int64) ($f.poolSize | int64) ($f.pipelining | int64) ($f.inflight | int64) ($f.maxReplicas | int64) $at ($f.concurrency | int64) ($f.queue | int64) ($f.admitted | int64) ($f.admitted | int64) ($f.headroomPercent | int64) ($f.required | int64) $minPool) -}}
{{- end -}}

{{/* 4b. Admission: an admitted request must still be answerable; the reduced allowance is at most the full one. */}}
{{- range $name, $s := dict "authService" $auth "registrationService" $reg -}}
{{- $b := (index $v $name).overload.bcrypt -}}
{{- $budget := add ($s.maxWaitMs | int64) $bcryptWorst -}}
{{- if ge $budget ($s.deadlineMs | int64) -}}
{{- $errors = append $errors (printf "admission: %s.overload.bcrypt.maxWait %dms + one worst-case bcrypt %dms = %dms is not below its deadline %dms: a request admitted to wait that long could not be answered in time. Lower %s.overload.bcrypt.maxWait or raise %s.overload.deadline." $name ($s.maxWaitMs | int64) $bcryptWorst $budget ($s.deadlineMs | int64) $name $name) -}}
{{- end -}}
{{- if not (kindIs "invalid" $b.targetWait) -}}
{{- $targetMs := include "device-identity.millis" $b.targetWait | int64 -}}
{{- if gt $targetMs ($s.maxWaitMs | int64) -}}
{{- $errors = append $errors (printf "admission: %s.overload.bcrypt.targetWait %dms is above maxWait %dms: the allowance under sustained load must not exceed the one after the queue drained. Lower %s.overload.bcrypt.targetWait." $name $targetMs ($s.maxWaitMs | int64) $name) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* 5. Things no schema can say. */}}
{{- range $name := list "authService" "registrationService" -}}
{{- $a := (index $v $name).autoscaling -}}
{{- if and $a.enabled (gt ($a.minReplicas | int64) ($a.maxReplicas | int64)) -}}
{{- $errors = append $errors (printf "autoscaling: %s.autoscaling.minReplicas %d is above maxReplicas %d." $name ($a.minReplicas | int64) ($a.maxReplicas | int64)) -}}
{{- end -}}
{{- end -}}

{{/* 5b. Registration tokens: every id names one caller in the logs, every token identifies one id. */}}
{{- if not $v.registrationService.existingSecret -}}
{{- $ids := list -}}
{{- $given := list -}}
{{- range $v.registrationService.tokens -}}
{{- if kindIs "map" . -}}
{{- if has .id $ids -}}
{{- $errors = append $errors (printf "registrationService.tokens: the id %q appears twice; each caller's token needs its own id (it is what the write logs name)." .id) -}}
{{- end -}}
{{- $ids = append $ids .id -}}
{{- if and .token (has .token $given) -}}
{{- $errors = append $errors (printf "registrationService.tokens: the token of %q is also another entry's; give each id its own token (or leave it out to have one generated)." .id) -}}
{{- end -}}
{{- if .token -}}{{- $given = append $given .token -}}{{- end -}}
{{- end -}}
{{- end -}}
{{- if not $v.registrationService.tokens -}}
{{- $errors = append $errors "registrationService.tokens is empty and registrationService.existingSecret is not set: registration-service would accept no caller and does not start. Keep the default entry (id admin, every scope) or list your callers." -}}
{{- end -}}
{{- end -}}

{{/* 6. auth-service's own role and the fast path's key set (_fastpath.tpl). */}}
{{- $errors = concat $errors (include "device-identity.validate.fastPath" . | fromJsonArray) -}}

{{/* 7. TLS on every credential hop, unless tls.plaintextAllowedBecause (tls/_tls.tpl). */}}
{{- $errors = concat $errors (include "device-identity.validate.tls" . | fromJsonArray) -}}
{{- $errors = concat $errors (include "device-identity.validate.roles" . | fromJsonArray) -}}

{{- if $errors -}}
{{- fail (printf "\n\nThe values break the chain's invariants (README \"Kubernetes\"):\n  - %s\n" (join "\n  - " $errors)) -}}
{{- end -}}
{{- end -}}
