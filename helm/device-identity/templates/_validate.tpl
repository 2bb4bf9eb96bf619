{{/*
The chain's invariants. Each broken one adds a message that names the numbers and the values to change; the render
fails with all of them at once (templates/validate.yaml). README "Kubernetes" lists them in a table.
*/}}
{{- define "device-identity.validate" -}}
{{- $v := .Values -}}
{{- $auth := include "device-identity.authSizing" . | fromJson -}}
{{- $reg := include "device-identity.registrationSizing" . | fromJson -}}
{{- $errors := list -}}

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

{{/* 2. Client connections at HPA maximum vs PgBouncer's max_client_conn (with headroom for uneven spreading). */}}
{{- $authConns := mul ($auth.maxReplicas | int64) ($auth.pool | int64) -}}
{{- $regConns := mul ($reg.maxReplicas | int64) ($reg.pool | int64) -}}
{{- $clients := add $authConns $regConns -}}
{{- $clientCap := div (mul ($v.pgbouncer.replicas | int64) ($v.pgbouncer.maxClientConn | int64) (sub 100 ($v.pgbouncer.clientHeadroomPercent | int64))) 100 -}}
{{- if gt $clients $clientCap -}}
{{- $errors = append $errors (printf "connections: at HPA maximum auth-service opens %d replicas x pool %d = %d and registration-service %d x %d = %d client connections, %d in all, but PgBouncer admits %d replicas x max_client_conn %d less %d%% headroom = %d. Raise pgbouncer.maxClientConn or pgbouncer.replicas, or lower the services' autoscaling.maxReplicas or db.poolMaxSize." ($auth.maxReplicas | int64) ($auth.pool | int64) $authConns ($reg.maxReplicas | int64) ($reg.pool | int64) $regConns $clients ($v.pgbouncer.replicas | int64) ($v.pgbouncer.maxClientConn | int64) ($v.pgbouncer.clientHeadroomPercent | int64) $clientCap) -}}
{{- end -}}

{{/* 3. Server connections: PgBouncer's pools plus the direct migration connections vs PostgreSQL max_connections. */}}
{{- $perBouncer := add ($v.pgbouncer.defaultPoolSize | int64) ($v.pgbouncer.reservePoolSize | int64) -}}
{{- $bouncerServers := mul ($v.pgbouncer.replicas | int64) $perBouncer -}}
{{- $migration := mul ($reg.maxReplicas | int64) ($v.registrationService.db.migrationConnections | int64) -}}
{{- $servers := add $bouncerServers $migration -}}
{{- $serverCap := sub ($v.postgresql.maxConnections | int64) ($v.postgresql.reservedConnections | int64) -}}
{{- if gt $servers $serverCap -}}
{{- $errors = append $errors (printf "connections: PgBouncer can open %d replicas x (default_pool_size %d + reserve_pool_size %d) = %d server connections and registration-service's migrations %d x %d = %d more, %d in all, but PostgreSQL allows max_connections %d - reserved %d = %d. Lower pgbouncer.defaultPoolSize or pgbouncer.replicas, or raise postgresql.maxConnections." ($v.pgbouncer.replicas | int64) ($v.pgbouncer.defaultPoolSize | int64) ($v.pgbouncer.reservePoolSize | int64) $bouncerServers ($reg.maxReplicas | int64) ($v.registrationService.db.migrationConnections | int64) $migration $servers ($v.postgresql.maxConnections | int64) ($v.postgresql.reservedConnections | int64) $serverCap) -}}
{{- end -}}

{{/* 4. In-flight authn: what EMQX can send at once vs what the auth tier admits (bulkhead + queue per replica). */}}
{{- $inflight := mul ($v.emqx.replicas | int64) ($v.emqx.authn.poolSize | int64) ($v.emqx.authn.pipelining | int64) -}}
{{- $admittedMin := mul ($auth.minReplicas | int64) ($auth.admitted | int64) -}}
{{- if gt $inflight $admittedMin -}}
{{- $errors = append $errors (printf "in-flight: EMQX can send %d nodes x pool_size %d x pipelining %d = %d authn requests at once, but auth-service admits %d replicas (at its minimum) x (bcrypt concurrency %d + queue %d) = %d; the rest would be refused as overload. Lower emqx.authn.pipelining or emqx.authn.poolSize, or raise authService.autoscaling.minReplicas." ($v.emqx.replicas | int64) ($v.emqx.authn.poolSize | int64) ($v.emqx.authn.pipelining | int64) $inflight ($auth.minReplicas | int64) ($auth.concurrency | int64) ($auth.queue | int64) $admittedMin) -}}
{{- end -}}
{{- $busyMax := mul ($auth.maxReplicas | int64) ($auth.concurrency | int64) -}}
{{- if lt $inflight $busyMax -}}
{{- $errors = append $errors (printf "in-flight: EMQX can send only %d nodes x pool_size %d x pipelining %d = %d authn requests at once, fewer than the %d bcrypt threads auth-service has at HPA maximum (%d replicas x concurrency %d): connects would queue inside EMQX (unbounded, eating its request_timeout) while auth-service CPUs idle. Raise emqx.authn.poolSize, or lower authService.autoscaling.maxReplicas." ($v.emqx.replicas | int64) ($v.emqx.authn.poolSize | int64) ($v.emqx.authn.pipelining | int64) $inflight $busyMax ($auth.maxReplicas | int64) ($auth.concurrency | int64)) -}}
{{- end -}}

{{/* 5. Things no schema can say. */}}
{{- range $name := list "authService" "registrationService" -}}
{{- $a := (index $v $name).autoscaling -}}
{{- if and $a.enabled (gt ($a.minReplicas | int64) ($a.maxReplicas | int64)) -}}
{{- $errors = append $errors (printf "autoscaling: %s.autoscaling.minReplicas %d is above maxReplicas %d." $name ($a.minReplicas | int64) ($a.maxReplicas | int64)) -}}
{{- end -}}
{{- end -}}

{{- if $errors -}}
{{- fail (printf "\n\nThe values break the chain's invariants (README \"Kubernetes\"):\n  - %s\n" (join "\n  - " $errors)) -}}
{{- end -}}
{{- end -}}
