# Sourced by scripts/bench.sh (not run on its own): auth-service as Kubernetes runs it, in pods with a CPU LIMIT.
#
# Kubernetes enforces limits.cpu with a CFS quota on the pod's cgroup: cpu.cfs_quota_us = limit x cpu.cfs_period_us
# (cgroup v1) or cpu.max "quota period" (v2); the whole process (event loop, JIT, GC, bcrypt) gets that much CPU time
# per period and is throttled for the rest. Each auth-service process started here goes into a cgroup of its own,
# named after this bench run (device-identity-bench-<pid>-<slot>), with the quota of its pod size, and every such
# cgroup is removed on exit (pod_cgroups_remove, from bench.sh's EXIT trap). The JVM reads the quota (JDK 17,
# cgroup v1 and v2: "Effective CPU Count" = ceil(quota / period), checked with -XshowSettings:system), so it sees the
# rounded-up CPU count as in a pod, and auth-service sizes its bcrypt threads from it: no -XX:ActiveProcessorCount.
# The quota is the LIMIT; what a node guarantees is the pod's REQUEST, through cpu.shares (the kubelet writes
# requests x 1024, relative to the other pods). On a machine shared with other work the pod would otherwise get a
# task's share of a core and the quota would never bind, so each cgroup gets BENCH_CGROUP_SHARES (262144, v1's
# maximum; cpu.weight 10000 on v2): it gets its quota first, never more (the quota still caps it).
# Where no writable cgroup exists (BENCH_CGROUP=none, or neither /sys/fs/cgroup/cpu nor a v2 cpu.max can be
# created), the processes are only pinned with taskset to BENCH_AUTH_CPUS, with -XX:ActiveProcessorCount=ceil(CPU)
# so the bcrypt threads still follow the pod size; a sub-core size is then NOT measured as a pod, and the output says so.
#
# Also here: the pod-size table (BENCH_AUTH_CPU), the incident replay (two 0.25-vCPU replicas behind one EMQX pool)
# and the cold replica (a third one started in the middle of the storm), all served over HTTPS and called as EMQX
# calls them (BENCH_POD_TLS); the pod-size table's late windows, CPU per refused answer and, with BENCH_JFR=1, a
# profile of each storm's late window. Uses bench.sh's log, die, loadtest, figure,
# seed, warm_up, devices_for, COMMON_NO_URL, the PROTECTED/UNPROTECTED settings and the stack's directories. What is
# computed (quotas, CPUs, capacities, throttling) the load generator computes: loadtest bench <figure>.

# --- cgroups ----------------------------------------------------------------------------------------------------
POD_CGROUP_KIND="" POD_CGROUP_DIR=""

# Decides once (in bench.sh's own shell) where quotas go: v1 (/sys/fs/cgroup/cpu), v2 (/sys/fs/cgroup with the cpu
# controller) or none; sets POD_CGROUP_KIND.
pod_cgroup_detect() {
  local kind=none probe
  case "${BENCH_CGROUP:-auto}" in
    none) kind=none ;;
    auto | v1 | v2)
      probe=device-identity-bench-$$-probe
      if [[ "${BENCH_CGROUP:-auto}" != v2 && -w /sys/fs/cgroup/cpu && -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]] \
        && mkdir "/sys/fs/cgroup/cpu/$probe" 2>/dev/null; then
        rmdir "/sys/fs/cgroup/cpu/$probe"; kind=v1
      elif [[ "${BENCH_CGROUP:-auto}" != v1 && -f /sys/fs/cgroup/cgroup.controllers ]] \
        && grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null && mkdir "/sys/fs/cgroup/$probe" 2>/dev/null; then
        [[ -f "/sys/fs/cgroup/$probe/cpu.max" ]] && kind=v2
        rmdir "/sys/fs/cgroup/$probe"
      fi ;;
    *) die "BENCH_CGROUP: auto, v1, v2 or none, not $BENCH_CGROUP" ;;
  esac
  POD_CGROUP_KIND=$kind
  if [[ $kind == none ]]; then
    log "NOTE: no writable cgroup v1 cpu controller (/sys/fs/cgroup/cpu) and no cgroup v2 cpu.max: auth-service runs" \
      "WITHOUT a CFS quota, only pinned with taskset to CPU $BENCH_AUTH_CPUS (and -XX:ActiveProcessorCount=ceil(pod CPU))." \
      "Pod sizes below one core are then not measured as pods; the tables say 'taskset'."
  fi
}
pod_cgroup_kind() { echo "${POD_CGROUP_KIND:-none}"; }

# Creates (or re-sizes) the cgroup for SLOT with a quota of CPU (e.g. 0.25); sets POD_CGROUP_DIR (empty without
# cgroups). Not in a command substitution: the cleanup finds the cgroups by this run's name anyway.
pod_cgroup() {
  local slot=$1 cpu=$2 dir period quota
  POD_CGROUP_DIR=""
  case "$POD_CGROUP_KIND" in
    v1)
      dir=/sys/fs/cgroup/cpu/device-identity-bench-$$-$slot
      mkdir -p "$dir"
      period=$(cat "$dir/cpu.cfs_period_us")
      quota=$(figure quota --cpu "$cpu" --period "$period")
      echo "$quota" >"$dir/cpu.cfs_quota_us"
      echo "$BENCH_CGROUP_SHARES" >"$dir/cpu.shares" ;;
    v2)
      dir=/sys/fs/cgroup/device-identity-bench-$$-$slot
      mkdir -p "$dir"
      period=100000
      quota=$(figure quota --cpu "$cpu" --period "$period")
      echo "$quota $period" >"$dir/cpu.max"
      echo "$(( BENCH_CGROUP_SHARES > 10000 ? 10000 : BENCH_CGROUP_SHARES ))" >"$dir/cpu.weight" ;;
    *) return 0 ;;
  esac
  POD_CGROUP_DIR=$dir
}

# The cgroup's throttling counters: "periods throttled throttled_ms" (cpu.stat), for the notes.
pod_cgroup_throttling() {
  local dir=$1
  [[ -n "$dir" && -f "$dir/cpu.stat" ]] || { echo "- - -"; return; }
  figure throttling "$dir/cpu.stat"
}

# Removes every cgroup this run created (device-identity-bench-<this pid>-*), v1 or v2.
pod_cgroups_remove() {
  local dir pid
  for dir in /sys/fs/cgroup/cpu/device-identity-bench-$$-* /sys/fs/cgroup/device-identity-bench-$$-*; do
    [[ -d "$dir" ]] || continue
    # Only our own processes can be in it (auth-service replicas this script started and has stopped already).
    for pid in $(cat "$dir/cgroup.procs" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null || true; done
    for _ in $(seq 1 50); do rmdir "$dir" 2>/dev/null && break; sleep 0.1; done
    [[ -d "$dir" ]] && log "warning: could not remove cgroup $dir"
  done
  return 0
}

# --- auth-service processes (slots) ----------------------------------------------------------------------------
# Slot "auth-service" is bench.sh's service (AUTH_PORT, AUTH_PID_FILE); replica-N are the incident's replicas.
pid_file_of() { echo "$RUN_DIR/bench-$1.pid"; }

# A pod of CPU: "bcrypt_threads taskset_cpus subcore" (taskset CPUs: BENCH_AUTH_CPUS while the pod fits there, else
# every CPU, a 2-vCPU pod on 2 cores; subcore 1 below one CPU).
pod_shape() { figure pod --cpu "$1" --cpus "$BENCH_AUTH_CPUS" --machine-cpus "$(nproc)"; }

# Starts auth-service in SLOT on PORT as a pod of CPU, with extra environment (KEY=VALUE ...); does not wait.
launch_pod() {
  local slot=$1 port=$2 cpu=$3 name=$4
  shift 4
  local pid_file cg pin threads subcore jvm_cpus=() jit=() jfr=()
  pid_file=$(pid_file_of "$slot")
  stop_pod "$slot"
  ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null \
    || die "127.0.0.1:$port is already in use: stop what runs there or set AUTH_PORT (replicas use AUTH_PORT+1..+3)"
  mkdir -p "$RUN_DIR" "$LOG_DIR"
  pod_cgroup "$slot" "$cpu"
  cg=$POD_CGROUP_DIR
  read -r threads pin subcore < <(pod_shape "$cpu")
  [[ -z "$cg" ]] && jvm_cpus=("-XX:ActiveProcessorCount=$threads")
  # A native image's container support reads cgroup v2 only (docs/native.md): under a v1 quota it would count every
  # CPU of the machine, which no pod sees; it is given the count a v2 node would give it.
  [[ -n "${AUTH_NATIVE:-}" && "$POD_CGROUP_KIND" != v2 ]] && jvm_cpus=("-XX:ActiveProcessorCount=$threads")
  POD_SCHEME[$port]=http
  [[ " $* ${BENCH_AUTH_ENV:-} " == *" IDENTITY_TLS_ENABLED=true "* ]] && POD_SCHEME[$port]=https
  # BENCH_JFR=1: the pod-size table's JVMs record from their start (held in JFR's repository, nothing written at
  # exit); each point dumps its late window into its own directory (pod_jfr_top).
  [[ "$BENCH_JFR" == 1 && "$name" == pod-* ]] && jfr=(-XX:StartFlightRecording=name=bench,settings=profile)
  # Below one CPU the chart runs a JVM image with C1 alone (authService.jvm.c1BelowOneCpu); the bench does the same.
  if [[ "$BENCH_SUBCORE_JIT" == c1 && "$subcore" == 1 ]]; then jit=(-XX:TieredStopAtLevel=1); fi
  [[ -n "${AUTH_NATIVE:-}" ]] && jit=()
  log "starting auth-service $slot ($name) on 127.0.0.1:$port: pod of $cpu vCPU (${cg:-no cgroup: taskset only}), CPU $pin, $(auth_image)${jit[*]:+, JIT: C1 only}"
  (
    [[ -n "$cg" ]] && echo "$BASHPID" >"$cg/cgroup.procs"
    export IDENTITY_DB_HOST=127.0.0.1 IDENTITY_DB_PORT=$PGBOUNCER_PORT IDENTITY_DB_NAME=$DB_NAME
    export IDENTITY_DB_USER=$AUTH_DB_USER IDENTITY_DB_PASSWORD=$AUTH_DB_PASSWORD IDENTITY_SCHEMA_PORT=$PG_PORT
    export IDENTITY_SCHEMA_MIGRATE=true IDENTITY_SCHEMA_USER=$DB_USER IDENTITY_SCHEMA_PASSWORD=$DB_PASSWORD
    export IDENTITY_DB_SSLMODE=verify-full IDENTITY_DB_SSLROOTCERT=$DB_CA
    export IDENTITY_AUTH_DB_USER=$AUTH_DB_USER IDENTITY_AUTH_FAST_PATH_KEYS=$BENCH_FAST_PATH_KEYS
    export AUTH_HOST=127.0.0.1 AUTH_PORT=$port IDENTITY_MANAGEMENT_HOST=127.0.0.1
    # One line per answer would cost the pod more than some answers do.
    export QUARKUS_LOG_CATEGORY__IO_DEVICEIDENTITY_OUTCOME__LEVEL=WARN
    # The known devices are seeded at a cheap cost so that seeding and their verify-once pass take seconds; a login
    # would otherwise re-hash each one at the service's cost, work that is no part of what the bench measures.
    export IDENTITY_AUTH_LEGACY_UPGRADE_COST=${BENCH_KNOWN_COST:-10}
    # BENCH_AUTH_ENV (KEY=VALUE ...) and BENCH_AUTH_JAVA_OPTS change every pod of the run, to compare settings.
    # A native executable takes the same heap bound and CPU count as run-time options; it has no JIT and no JFR here.
    # shellcheck disable=SC2086
    if [[ -n "${AUTH_NATIVE:-}" ]]; then
      exec env "$@" ${BENCH_AUTH_ENV:-} taskset -c "$pin" "$AUTH_NATIVE" -Xmx512m "${jvm_cpus[@]}" ${BENCH_AUTH_JAVA_OPTS:-}
    fi
    # shellcheck disable=SC2086
    exec env "$@" ${BENCH_AUTH_ENV:-} taskset -c "$pin" java -Xmx512m "${jvm_cpus[@]}" "${jit[@]}" "${jfr[@]}" ${BENCH_AUTH_JAVA_OPTS:-} -jar "$AUTH_JAR"
  ) >"$LOG_DIR/auth-service-$slot-$name.log" 2>&1 &
  echo $! >"$pid_file"
  POD_STARTED_AT[$slot]=$(date +%s%N)
}
declare -A POD_STARTED_AT=()

# Waits until SLOT on PORT reports ready; prints the seconds since its launch.
await_pod() {
  local slot=$1 port=$2 name=$3 pid_file
  pid_file=$(pid_file_of "$slot")
  for _ in $(seq 1 480); do
    # Health is on the management interface: the main port + 1000 by default (docs/configuration.md).
    if curl -fsS "http://127.0.0.1:$((port + 1000))/q/health/ready" >/dev/null 2>&1; then
      local tenths=$(( ($(date +%s%N) - POD_STARTED_AT[$slot] + 50000000) / 100000000 ))
      echo "$(( tenths / 10 )).$(( tenths % 10 ))"
      return 0
    fi
    running "$(cat "$pid_file")" || { tail -n 30 "$LOG_DIR/auth-service-$slot-$name.log" >&2; die "auth-service $slot exited"; }
    sleep 0.25
  done
  die "auth-service $slot did not become ready (log: $LOG_DIR/auth-service-$slot-$name.log)"
}

start_pod() {
  local slot=$1 port=$2 cpu=$3 name=$4 ready_s
  launch_pod "$@"
  ready_s=$(await_pod "$slot" "$port" "$name")
  POD_READY_S[$slot]=$ready_s
  log "auth-service $slot ($name, $cpu vCPU) ready after $ready_s s, resident $(pod_memory "$slot" VmRSS) MiB"
}
declare -A POD_READY_S=()

# What the pods run: the JVM jar (AUTH_JAR) or a native executable (AUTH_NATIVE, e.g. `make native`'s
# auth-service/target/native/auth-service-<version>-runner).
auth_image() {
  if [[ -n "${AUTH_NATIVE:-}" ]]; then echo "native executable $(basename "$AUTH_NATIVE")"; else echo "JVM jar"; fi
}

# The resident memory of SLOT's process in MiB, from /proc/PID/status: VmRSS now, or VmHWM, its peak since the start.
pod_memory() {
  local pid key value _
  pid=$(cat "$(pid_file_of "$1")" 2>/dev/null) || { echo -; return 0; }
  while read -r key value _; do
    [[ "$key" == "$2:" ]] && { echo $(( value / 1024 )); return 0; }
  done 2>/dev/null <"/proc/$pid/status"
  echo -
}

# A process that has not exited (a zombie, exited but not yet reaped by this shell, counts as gone).
running() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [[ ${stat%% *} != Z ]]
}

stop_pod() {
  local pid_file pid
  pid_file=$(pid_file_of "$1")
  [[ -f "$pid_file" ]] || return 0
  pid=$(cat "$pid_file")
  if running "$pid"; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do running "$pid" || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true
  rm -f "$pid_file"
}

stop_all_pods() {
  local f
  for f in "$RUN_DIR"/bench-*.pid; do [[ -f "$f" ]] && stop_pod "$(basename "$f" .pid | sed 's/^bench-//')"; done
  return 0
}

# --- HTTPS as EMQX speaks it ---------------------------------------------------------------------------------
# A service started with TLS_ENV serves /mqtt/authn over HTTPS with a leaf of the stack's CA (scripts/local-ca.sh,
# SAN localhost and 127.0.0.1), issued once a run. The load generator then calls https://localhost:PORT and checks
# the certificate against the stack's CA (--ca-file) and the name localhost, which it also sends as SNI: what the
# chart's EMQX authenticator does with ssl { enable, verify = verify_peer, cacertfile, server_name_indication }.
TLS_ENV=()
TLS_CA=$STACK_DIR/tls/ca.crt
tls_leaf() {
  (( ${#TLS_ENV[@]} > 0 )) && return 0
  "$ROOT/scripts/local-ca.sh" issue "$STACK_DIR/tls" bench-auth-service >/dev/null
  TLS_ENV=(IDENTITY_TLS_ENABLED=true "IDENTITY_TLS_CERT_FILE=$STACK_DIR/tls/bench-auth-service.crt"
           "IDENTITY_TLS_KEY_FILE=$STACK_DIR/tls/bench-auth-service.key")
}
# The extra environment of the pod-shaped services: TLS_ENV unless BENCH_POD_TLS=0 (plain HTTP).
pod_tls_env() {
  POD_TLS=()
  [[ "$BENCH_POD_TLS" == 1 ]] || return 0
  tls_leaf
  POD_TLS=("${TLS_ENV[@]}")
}
POD_TLS=()

# How each port was last started: http or https (launch_pod).
declare -A POD_SCHEME=()
url_of() {
  if [[ "${POD_SCHEME[$1]:-http}" == https ]]; then echo "https://localhost:$1/mqtt/authn"; else echo "http://127.0.0.1:$1/mqtt/authn"; fi
}
# The load generator's options for the service on PORT, one a line: --url, and --ca-file when it serves HTTPS.
target_of() {
  printf -- '--url\n%s\n' "$(url_of "$1")"
  [[ "${POD_SCHEME[$1]:-http}" == https ]] && printf -- '--ca-file\n%s\n' "$TLS_CA"
  return 0
}

# The chart's EMQX pool_size per node for a pod of CPU (helm/device-identity templates "authnInFlight", computed by
# scripts/size.py from values.yaml with resources.limits.cpu = CPU).
chart_pool() { python3 "$ROOT/scripts/size.py" --emqx-pool-for-cpu "$1"; }

# --- capacity ---------------------------------------------------------------------------------------------------
# Honest capacity of the pod on PORT: a closed loop of as many callers as it has bcrypt threads (ceil(CPU), the
# JVM's CPU count under the quota): never refused (nothing ever waits for a bcrypt thread), nobody pays for refusals.
# Writes $BENCH_OUT/<out>/summary.json and bcrypt-bound.txt; prints the allows/s; fails when there were none.
pod_capacity() {
  local port=$1 cpu=$2 out=$3 users=${4:-}
  local who="the pod's bcrypt threads" goodput target
  [[ -n "$users" ]] && who="the old measure" || read -r users _ < <(pod_shape "$cpu")
  log "$out: closed loop, $users caller(s) ($who), pipelining 1, $BENCH_CAPACITY_DURATION (first 5 s not counted), $(url_of "$port")"
  figure_metrics "$(metrics_url "$port")" --save "$RUN_DIR/metrics-$out.prom" >/dev/null
  mapfile -t target < <(target_of "$port")
  loadtest run "${target[@]}" "${COMMON_NO_URL[@]}" --devices "$CAPACITY_DEVICES" --device-prefix bench-capacity- \
    --closed-loop "$users" --pool-size "$users" --pipelining 1 --duration "$BENCH_CAPACITY_DURATION" --warmup 5s \
    --out "$BENCH_OUT/$out" --label "$out" --progress lines >/dev/null 2>"$LOG_DIR/loadtest-$out.log" &
  local lt=$!
  # CAPACITY_CPU=PREFIX: CPU snapshots PREFIX-from at the end of the warm-up (5 s) and PREFIX-to at the run's end.
  if [[ -n "${CAPACITY_CPU:-}" ]]; then at_second "$lt" "$LOG_DIR/loadtest-$out.log" "$out" 5; cpu_snap "$CAPACITY_CPU-from"; fi
  wait "$lt" || { tail -n 20 "$LOG_DIR/loadtest-$out.log" >&2; die "$out failed"; }
  [[ -z "${CAPACITY_CPU:-}" ]] || cpu_snap "$CAPACITY_CPU-to"
  # bcrypt's own rate (bcrypt-bound.txt): threads / mean wall time of one check (throttling included), what the pod
  # could hash if its threads never waited for the next request; the closed loop leaves them idle for every round trip.
  goodput=$(figure capacity --summary "$BENCH_OUT/$out/summary.json" --cpu "$cpu" \
    --bcrypt-before "$RUN_DIR/metrics-$out.prom" --metrics "$(metrics_url "$port")" \
    --bound-out "$BENCH_OUT/$out/bcrypt-bound.txt") || return 1
  log "$out: bcrypt-bound capacity (threads / mean check time) $(cat "$BENCH_OUT/$out/bcrypt-bound.txt") allows/s"
  echo "$goodput"
}

# --- where the pod's CPU went ------------------------------------------------------------------------------------
# Thread CPU accounting of the pod's JVM (scripts/thread-cpu.py: every thread by group, bcrypt, event loop, database,
# JIT, GC, other, and the whole process) around the capacity run and over each storm's late window (from
# BENCH_LATE_WINDOW's start, when the JIT is warm, to the storm's end), against the answers the load generator
# counted in the same seconds (its per-second series):
#   thread-cpu.txt     the CPU of each group per answer, and "all but bcrypt" per answer (thread-cpu.py diff)
#   refusal-cost.txt   CPU per refused answer: (process CPU - bcrypt threads' CPU - allows x the non-bcrypt CPU per
#                      allow of a capacity run after the storms) / refused answers, in microseconds (loadtest bench
#                      refusal-cost)
# cpu_snap PREFIX: the process's and each thread's stat line to PREFIX.stat, with bash builtins alone: in a storm the
# pod has its core and the load generator the other, and a program started now (a JVM, even python) would begin
# seconds late; PREFIX.json is made from it afterwards.
cpu_snap() {
  local pid line f
  pid=$(<"$(pid_file_of auth-service)")
  {
    read -r line <"/proc/$pid/stat" && echo "process $line"
    for f in "/proc/$pid/task/"*/stat; do read -r line <"$f" 2>/dev/null && echo "thread $line"; done
  } >"$1.stat"
}
cpu_json() { python3 "$ROOT/scripts/thread-cpu.py" read "$1.stat" "$1.json"; }

# The late window's figures of point NAME (cpu_snap'd at its start and end by point, POINT_MARK_AT) against the
# warm capacity run of pod SLUG (pod_sizes); prints them to the log and records the figure for the pod table (POD_REFUSAL_US).
late_window_cpu() {
  local name=$1 slug=$2 from=$RUN_DIR/cpu-$1-from to=$RUN_DIR/cpu-$1-to answers
  local capacity=$RUN_DIR/cpu-$slug-capacity
  cpu_json "$from"
  cpu_json "$to"
  POD_REFUSAL_US=-
  rm -f "$RUN_DIR/refusal-us-$name" "$RUN_DIR/answers-$name"
  figure refusal-cost --capacity-threads "$capacity-from.json" "$capacity-to.json" \
    --capacity-summary "$BENCH_OUT/$slug-capacity-warm/summary.json" --capacity-from 5 --window-threads "$from.json" "$to.json" \
    --window-summary "$BENCH_OUT/$name/summary.json" --window-from "${BENCH_LATE_WINDOW%%-*}" \
    --out "$BENCH_OUT/$name/refusal-cost.txt" --figure-out "$RUN_DIR/refusal-us-$name" \
    --answers-out "$RUN_DIR/answers-$name" | sed "s/^/[bench] $name: /" >&2 \
    || log "$name: no CPU per refused answer (loadtest bench refusal-cost failed)"
  POD_REFUSAL_US=$(cat "$RUN_DIR/refusal-us-$name" 2>/dev/null || echo -)
  answers=$(cat "$RUN_DIR/answers-$name" 2>/dev/null || echo 0)
  python3 "$ROOT/scripts/thread-cpu.py" diff "$from.json" "$to.json" "$answers" \
    | tee "$BENCH_OUT/$name/thread-cpu.txt" | sed "s/^/[bench] $name: /" >&2
  credential_reads "$name" "$answers"
}

# The credential reads of point NAME's late window (the guard's invocations of CredentialFinder.find, from the
# pages point_mark recorded), per answer, and the database threads' CPU per read: what a refusal that needs the row
# costs beside one that does not. To database-reads.txt beside thread-cpu.txt.
CREDENTIAL_READS='ft_invocations_total{method="io.deviceidentity.credentials.CredentialFinder.find"}'
credential_reads() {
  local name=$1 answers=$2 reads database_s side pid
  for side in from to; do  # point_mark's downloads (not `wait`: the pods are this shell's children too)
    pid=$(cat "$RUN_DIR/metrics-$name-$side.pid" 2>/dev/null) || continue
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  done
  reads=$(figure_metrics --since "$RUN_DIR/metrics-$name-from.prom" "$RUN_DIR/metrics-$name-to.prom" "$CREDENTIAL_READS") \
    || { log "$name: no credential reads (metrics pages missing)"; return 0; }
  database_s=$(awk '$1 == "database" { print $2 }' "$BENCH_OUT/$name/thread-cpu.txt")
  awk -v reads="${reads%.*}" -v answers="$answers" -v cpu="${database_s:-0}" 'BEGIN {
    printf "credential reads: %d in the late window, %.2f per answer; database threads %.0f us per read\n",
      reads, (answers > 0 ? reads / answers : 0), (reads > 0 ? cpu * 1e6 / reads : 0) }' \
    | tee "$BENCH_OUT/$name/database-reads.txt" | sed "s/^/[bench] $name: /" >&2
}

# BENCH_JFR=1: the late window of the recording (from the instant in $RUN_DIR/late-from-NAME) dumped to the point's
# storm.jfr, and its execution samples' top frames and thread groups (loadtest bench jfr-top) to jfr-top.txt.
pod_jfr_top() {
  local name=$1 pid from
  [[ "$BENCH_JFR" == 1 ]] || return 0
  pid=$(cat "$(pid_file_of auth-service)")
  from=$(cat "$RUN_DIR/late-from-$name")
  jcmd "$pid" JFR.dump name=bench begin="$from" filename="$BENCH_OUT/$name/storm.jfr" >"$LOG_DIR/jfr-dump-$name.log" 2>&1 \
    || { log "$name: JFR.dump failed (log: $LOG_DIR/jfr-dump-$name.log)"; return 0; }
  jfr print --events jdk.ExecutionSample --stack-depth 1 --json "$BENCH_OUT/$name/storm.jfr" >"$RUN_DIR/samples-$name.json" \
    || { log "$name: jfr print failed"; return 0; }
  figure jfr-top --samples "$RUN_DIR/samples-$name.json" --from "$from" --top 15 --out "$BENCH_OUT/$name/jfr-top.txt" \
    | sed "s/^/[bench] $name: JFR /" >&2
  rm -f "$RUN_DIR/samples-$name.json"
}

# Called by point (POINT_MARK_AT) when the storm reaches the late window (from) and when it has ended (to): the CPU
# snapshot, and the instant the window began (for the profile; printf's %(...)T is a builtin, date would be late).
point_mark() {
  cpu_snap "$RUN_DIR/cpu-$1-$2"
  # The service's metrics page too, by curl in the background (a small C program, not a JVM): the credential reads.
  curl -s --max-time 5 -o "$RUN_DIR/metrics-$1-$2.prom" "$(metrics_url "$AUTH_PORT")" &
  echo $! >"$RUN_DIR/metrics-$1-$2.pid"
  [[ "$2" == from ]] && TZ=UTC printf '%(%Y-%m-%dT%H:%M:%SZ)T\n' -1 >"$RUN_DIR/late-from-$1"
  return 0
}

# --- the pod-size table ----------------------------------------------------------------------------------------
# For each pod size in BENCH_AUTH_CPU: a fresh protected service in a cgroup of that quota (HTTPS unless
# BENCH_POD_TLS=0), its honest capacity, and BENCH_OVERLOAD x that capacity for BENCH_POD_DURATION behind the chart's
# EMQX pool (one node's pool_size for that CPU limit, pipelining 1) and behind 8 connections (pipelining 1), devices
# retrying fixed:12s. Each point's windows.txt: goodput / capacity in the late window, the last BENCH_LATE_LAST
# seconds and the whole storm, and the request rate per BENCH_RATE_EVERY seconds (loadtest bench windows); its CPU
# per refused answer and thread groups over the late window, priced by a second capacity run after both storms
# (pod-<size>-capacity-warm); BENCH_JFR=1 adds its profile. Rows go to POD_ROWS.
POD_ROWS=() POD_JFR=() POD_MEMORY=() POD_REFUSAL_US=-
# The connection counts of each pod's storms: BENCH_POD_CONNECTIONS, "pool" meaning the chart's pool for that size.
pod_connections() {
  local pool=$1 conns
  for conns in $BENCH_POD_CONNECTIONS; do
    [[ "$conns" == pool ]] && echo "$pool" || echo "$conns"
  done
}
pod_sizes() {
  local cpu slug pool cap name target rows row late_from=${BENCH_LATE_WINDOW%%-*}
  for cpu in $BENCH_AUTH_CPU; do
    slug=${cpu//./_}
    selected "pod-$slug" || continue
    pod_tls_env
    start_pod auth-service "$AUTH_PORT" "$cpu" "pod-$slug" "${PROTECTED[@]}" "${POD_TLS[@]}"
    local rss_ready
    rss_ready=$(pod_memory auth-service VmRSS)
    # warm_up, point and pod_capacity call COMMON: here, this pod's URL (and CA).
    mapfile -t target < <(target_of "$AUTH_PORT")
    local COMMON=("${target[@]}" "${COMMON_NO_URL[@]}")
    seed capacity "$CAPACITY_DEVICES"
    warm_up "pod-$slug"
    cap=$(pod_capacity "$AUTH_PORT" "$cpu" "pod-$slug-capacity") || die "pod-$slug: capacity run got no allows"
    log "pod-$slug: capacity $cap allows/s ($(url_of "$AUTH_PORT"))"
    pool=$(chart_pool "$cpu")
    rows=()
    for conns in $(pod_connections "$pool"); do
      name="pod-$slug-${BENCH_OVERLOAD}x-pool-$conns"
      local cg throttled0 throttled1
      pod_cgroup auth-service "$cpu"
      cg=$POD_CGROUP_DIR
      throttled0=$(pod_cgroup_throttling "$cg")
      # The pod rows have their own table (each against its own pod's capacity), not the overload curve's.
      local saved_runs=("${RUNS[@]}")
      capacity=$cap BENCH_POINT_DURATION=$BENCH_POD_DURATION POINT_MARK_AT=$late_from \
        point "$name" "$conns" 1 fixed:12s "$BENCH_OVERLOAD"
      RUNS=("${saved_runs[@]}")
      throttled1=$(pod_cgroup_throttling "$cg")
      figure windows --summary "$BENCH_OUT/$name/summary.json" --capacity "$cap" --window "$BENCH_LATE_WINDOW" \
        --last "$BENCH_LATE_LAST" --every "$BENCH_RATE_EVERY" --out "$BENCH_OUT/$name/windows.txt" \
        | sed "s/^/[bench] $name: /" >&2
      pod_jfr_top "$name"
      [[ -f "$BENCH_OUT/$name/jfr-top.txt" ]] && POD_JFR+=("$name")
      rows+=("$name $cpu $cap $(cat "$BENCH_OUT/pod-$slug-capacity/bcrypt-bound.txt" 2>/dev/null || echo -) $conns $BENCH_OUT/$name/summary.json $throttled0 $throttled1")
      sleep "$BENCH_SETTLE"
    done
    # The price of an allow beside bcrypt, for the CPU per refused answer: the same closed loop as the capacity run,
    # now that the storms have warmed the JIT (the capacity run follows the JVM's start by seconds, and its compiled
    # code and the compiling itself would make an allow look several times dearer than it is in the storm).
    CAPACITY_CPU=$RUN_DIR/cpu-pod-$slug-capacity pod_capacity "$AUTH_PORT" "$cpu" "pod-$slug-capacity-warm" \
      >"$RUN_DIR/capacity-warm-$slug" || log "pod-$slug: the warm capacity run got no allows"
    log "pod-$slug: warm capacity run $(cat "$RUN_DIR/capacity-warm-$slug") allows/s (prices an allow)"
    cpu_json "$RUN_DIR/cpu-pod-$slug-capacity-from"
    cpu_json "$RUN_DIR/cpu-pod-$slug-capacity-to"
    POD_MEMORY+=("pod-$slug: ready after ${POD_READY_S[auth-service]} s; resident memory when ready $rss_ready MiB, peak $(pod_memory auth-service VmHWM) MiB (its storms included)")
    for row in "${rows[@]}"; do
      name=${row%% *}
      late_window_cpu "$name" "pod-$slug"
      POD_ROWS+=("${row#* } $POD_REFUSAL_US")
    done
    stop_pod auth-service
  done
}

# Prints the pod-size table from POD_ROWS (and the old 4-caller capacity once, if measured).
pod_table() {
  (( ${#POD_ROWS[@]} > 0 )) || return 0
  echo
  local scheme="HTTPS (verify_peer: the stack's CA, server name localhost)" name
  [[ "$BENCH_POD_TLS" == 1 ]] || scheme="plain HTTP"
  echo "Pod sizes: auth-service ($(auth_image), protected, fast path off) in a cgroup with a CFS quota of the pod's CPU ($(pod_cgroup_kind))," \
    "over $scheme; ${BENCH_OVERLOAD}x its capacity for $BENCH_POD_DURATION, EMQX request_timeout $BENCH_REQUEST_TIMEOUT," \
    "pipelining 1, devices retry fixed:12s; capacity = closed loop of as many callers as bcrypt threads (never refused);" \
    "goodput / capacity in the late window ($BENCH_LATE_WINDOW s), the last $BENCH_LATE_LAST s and the whole storm;" \
    "bcrypt-bound = threads / mean check time in that run; p99 allow, late, expired and bcrypt/s in the steady state" \
    "(its rule's start to the end); us/refusal = CPU per refused answer over the late window (refusal-cost.txt)"
  figure pod-table --window "$BENCH_LATE_WINDOW" --last "$BENCH_LATE_LAST" --every "$BENCH_RATE_EVERY" "${POD_ROWS[@]}"
  echo "Start and memory ($(auth_image)):"
  printf '  %s\n' "${POD_MEMORY[@]}"
  for name in "${POD_JFR[@]}"; do
    echo "$name: JFR execution samples in the late window ($BENCH_OUT/$name/storm.jfr):"
    cat "$BENCH_OUT/$name/jfr-top.txt"
  done
}

# --- the answer floor ------------------------------------------------------------------------------------------
# What an answer costs before any of the service's own work, for each pod size in BENCH_AUTH_CPU: the same pod
# (cgroup quota, CPU, JIT as launch_pod gives auth-service) running, one after the other,
#   bare     AnswerFloorServer (benchmarks/refusal): the service's Vert.x, certificate and event loop count, answering
#            every request with the service's 503 overload, deciding nothing;
#   service  auth-service itself, protected, answering client ids that no device can have (a '#', which the client id
#            policy refuses): its cheapest answer, decided on the event loop before anything else;
# each over 8 connections x pipelining 1 (HTTPS verified unless BENCH_POD_TLS=0, no retries): BENCH_FLOOR_WARMUP of a
# closed loop and 20 s at the rate to warm the JIT, then BENCH_FLOOR_RATE requests/s for BENCH_FLOOR_DURATION between
# two CPU snapshots
# (thread-cpu.py: the whole process and the event loop per answer; thread-cpu.txt in each measured run's directory).
# Read against the pod table's us/refusal: bare is what the kernel, TLS and HTTP cost on this machine, whatever the
# service does; service - bare is what Quarkus's HTTP layer and the service's metrics add to an answer; us/refusal -
# service is what deciding a storm's refusal (and the reads of first attempts) adds.
FLOOR_ROWS=()
FLOOR_CLASS=io.deviceidentity.auth.authn.AnswerFloorServer

# The floor server's arguments after its class name, one a line (AnswerFloorServerTest parses this very output): the
# port, the event loops auth-service has in a pod of THREADS CPUs (Quarkus: two per CPU), the pod points' certificate.
floor_args() {
  local port=$1 threads=$2
  printf -- '%s\n' --port "$port" --event-loops "$((2 * threads))"
  [[ "$BENCH_POD_TLS" == 1 ]] \
    && printf -- '%s\n' --cert "$STACK_DIR/tls/bench-auth-service.crt" --key "$STACK_DIR/tls/bench-auth-service.key"
  return 0
}

# Starts the floor server in auth-service's slot on PORT as a pod of CPU and waits until it answers (any answer: it
# has no health check; the certificate is the load generator's to check).
launch_floor() {
  local port=$1 cpu=$2 name=$3 cg threads pin subcore pid jvm_cpus=() jit=() args=()
  stop_pod auth-service
  mkdir -p "$RUN_DIR" "$LOG_DIR"
  pod_cgroup auth-service "$cpu"
  cg=$POD_CGROUP_DIR
  read -r threads pin subcore < <(pod_shape "$cpu")
  [[ -z "$cg" ]] && jvm_cpus=("-XX:ActiveProcessorCount=$threads")
  if [[ "$BENCH_SUBCORE_JIT" == c1 && "$subcore" == 1 ]]; then jit=(-XX:TieredStopAtLevel=1); fi
  mapfile -t args < <(floor_args "$port" "$threads")
  POD_SCHEME[$port]=http
  [[ "$BENCH_POD_TLS" == 1 ]] && POD_SCHEME[$port]=https
  log "starting the answer floor ($name) on 127.0.0.1:$port: pod of $cpu vCPU (${cg:-no cgroup: taskset only}), CPU $pin${jit[*]:+, JIT: C1 only}"
  (
    [[ -n "$cg" ]] && echo "$BASHPID" >"$cg/cgroup.procs"
    exec taskset -c "$pin" java -Xmx512m "${jvm_cpus[@]}" "${jit[@]}" -cp "$REFUSAL_JMH_JAR" "$FLOOR_CLASS" "${args[@]}"
  ) >"$LOG_DIR/answer-floor-$name.log" 2>&1 &
  pid=$!
  echo "$pid" >"$(pid_file_of auth-service)"
  for _ in $(seq 1 600); do
    curl -s -k -o /dev/null --max-time 2 "$(url_of "$port")" && return 0
    running "$pid" || break
    sleep 0.2
  done
  die "the answer floor ($name) is not listening on $port (log: $LOG_DIR/answer-floor-$name.log)"
}

# Drives what runs on PORT with client ids PREFIX<n>: BENCH_FLOOR_WARMUP of a closed loop of 8 callers (as many
# answers as the pod gives: at the measured rate alone a fresh JVM's C2 was still compiling after 90 s), 20 s at
# BENCH_FLOOR_RATE (the warm-up's connections closing and new ones opening deoptimize code that C2 compiled without
# those events; its recompiling, seconds of CPU at one vCPU, happens here), then BENCH_FLOOR_RATE requests/s for
# BENCH_FLOOR_DURATION between two CPU snapshots; prints "<process us> <event loop us>" per answer.
floor_measure() {
  local name=$1 port=$2 prefix=$3 target phase load out answers
  mapfile -t target < <(target_of "$port")
  for phase in warm rewarm measured; do
    out=$name-$phase
    case $phase in
      warm) load=(--closed-loop 8 --duration "$BENCH_FLOOR_WARMUP") ;;
      rewarm) load=(--rate "$BENCH_FLOOR_RATE" --duration 20s) ;;
      measured)
        load=(--rate "$BENCH_FLOOR_RATE" --duration "$BENCH_FLOOR_DURATION")
        cpu_snap "$RUN_DIR/cpu-$name-from" ;;
    esac
    loadtest run "${target[@]}" "${load[@]}" --pool-size 8 --pipelining 1 --retry none \
      --request-timeout "$BENCH_REQUEST_TIMEOUT" --devices 1000000 --device-prefix "$prefix" --service-metrics none \
      --out "$BENCH_OUT/$out" --label "$out" --progress none >/dev/null 2>"$LOG_DIR/loadtest-$out.log" \
      || { tail -n 20 "$LOG_DIR/loadtest-$out.log" >&2; die "$out failed"; }
  done
  cpu_snap "$RUN_DIR/cpu-$name-to"
  cpu_json "$RUN_DIR/cpu-$name-from"
  cpu_json "$RUN_DIR/cpu-$name-to"
  answers=$(python3 -c 'import json, sys; print(sum(json.load(open(sys.argv[1])).get("totals", {}).get("answers", {}).values()))' \
    "$BENCH_OUT/$name-measured/summary.json")
  python3 "$ROOT/scripts/thread-cpu.py" diff "$RUN_DIR/cpu-$name-from.json" "$RUN_DIR/cpu-$name-to.json" "$answers" \
    >"$BENCH_OUT/$name-measured/thread-cpu.txt"
  sed "s/^/[bench] $name: /" "$BENCH_OUT/$name-measured/thread-cpu.txt" >&2
  awk '$1 == "process" { p = $3 } $1 == "event" && $2 == "loop" { e = $4 } END { print (p == "" ? "-" : p), (e == "" ? "-" : e) }' \
    "$BENCH_OUT/$name-measured/thread-cpu.txt"
}

answer_floor() {
  local cpu slug bare service
  for cpu in $BENCH_AUTH_CPU; do
    slug=${cpu//./_}
    selected "floor-$slug" || continue
    pod_tls_env
    launch_floor "$AUTH_PORT" "$cpu" "floor-$slug-bare"
    bare=$(floor_measure "floor-$slug-bare" "$AUTH_PORT" bench-floor-)
    stop_pod auth-service
    start_pod auth-service "$AUTH_PORT" "$cpu" "floor-$slug-service" "${PROTECTED[@]}" "${POD_TLS[@]}"
    service=$(floor_measure "floor-$slug-service" "$AUTH_PORT" 'bench#floor-')
    stop_pod auth-service
    FLOOR_ROWS+=("$cpu $bare $service")
  done
}

floor_table() {
  (( ${#FLOOR_ROWS[@]} > 0 )) || return 0
  local scheme="HTTPS (verify_peer)" row
  [[ "$BENCH_POD_TLS" == 1 ]] || scheme="plain HTTP"
  echo
  echo "Answer floor: microseconds of CPU per answer at $BENCH_FLOOR_RATE requests/s over 8 connections x pipelining 1," \
    "$scheme, in the pod's cgroup, JIT warm ($BENCH_FLOOR_WARMUP of closed loop and 20 s at the rate first, then $BENCH_FLOOR_DURATION measured);" \
    "bare = the service's Vert.x answering its 503 overload, deciding nothing (AnswerFloorServer); service =" \
    "auth-service ($(auth_image)) answering client ids no device can have, its cheapest answer; process = every" \
    "thread, loop = the event loop's. Against the pod table's us/refusal: bare is the machine's, service - bare the" \
    "HTTP layer's and metrics', the rest deciding the refusal's"
  printf '%-8s %14s %10s %16s %12s\n' "pod vCPU" "bare process" "bare loop" "service process" "service loop"
  for row in "${FLOOR_ROWS[@]}"; do
    # shellcheck disable=SC2086
    printf '%-8s %14s %10s %16s %12s\n' $row
  done
}

# --- the incident replay ---------------------------------------------------------------------------------------
# BENCH_INCIDENT_REPLICAS replicas of BENCH_INCIDENT_CPU vCPU (each its own process and cgroup) behind ONE EMQX pool
# (BENCH_INCIDENT_POOL connections x pipelining, each connection opened once to a replica kube-proxy picks at random
# and kept: ServiceEndpoints in the load generator), BENCH_INCIDENT_RATE fresh logins/s, devices retrying fixed:12s.
INCIDENT_RUNS=() INCIDENT_CAPACITY=""
replica_port() { echo $(( AUTH_PORT + $1 )); }

start_replicas() {
  local config=$1 i
  shift
  # Started together (a JVM start under a 0.25-vCPU quota takes a while), then each awaited.
  for i in $(seq 1 "$BENCH_INCIDENT_REPLICAS"); do
    launch_pod "replica-$i" "$(replica_port "$i")" "$BENCH_INCIDENT_CPU" "incident-$config" "$@"
  done
  local ready_s
  for i in $(seq 1 "$BENCH_INCIDENT_REPLICAS"); do
    ready_s=$(await_pod "replica-$i" "$(replica_port "$i")" "incident-$config")
    log "auth-service replica-$i (incident-$config) ready after $ready_s s"
  done
  local target
  for i in $(seq 1 "$BENCH_INCIDENT_REPLICAS"); do
    mapfile -t target < <(target_of "$(replica_port "$i")")
    loadtest run "${target[@]}" "${COMMON_NO_URL[@]}" --devices "$CAPACITY_DEVICES" \
      --device-prefix bench-capacity- --closed-loop 2 --pool-size 2 --pipelining 1 --duration 6s --service-metrics none \
      --out "$BENCH_OUT/warmup-replica-$i-$config" --label warm-up --progress none >/dev/null
  done
}

# --url per replica, and --ca-file once when they serve HTTPS (one client TLS setting for the whole EMQX pool).
replica_urls() {
  local i
  for i in $(seq 1 "$BENCH_INCIDENT_REPLICAS"); do printf -- '--url\n%s\n' "$(url_of "$(replica_port "$i")")"; done
  target_of "$(replica_port 1)" | tail -n +3
}

# The replicas' summed honest capacity, each measured on its own (one caller per bcrypt thread), in parallel.
incident_capacity() {
  local i pids=() caps=()
  for i in $(seq 1 "$BENCH_INCIDENT_REPLICAS"); do
    pod_capacity "$(replica_port "$i")" "$BENCH_INCIDENT_CPU" "incident-capacity-replica-$i" >"$RUN_DIR/incident-capacity-$i" &
    pids+=($!)
  done
  for i in "${!pids[@]}"; do wait "${pids[$i]}" || die "incident: a replica's capacity run got no allows"; done
  for i in $(seq 1 "$BENCH_INCIDENT_REPLICAS"); do caps+=("$(cat "$RUN_DIR/incident-capacity-$i")"); done
  figure sum "${caps[@]}"
}

# One incident point: name pool pipelining [extra loadtest options ...].
incident_point() {
  local name=$1 pool=$2 pipelining=$3
  shift 3
  local devices urls
  devices=$(BENCH_POINT_DURATION=${INCIDENT_DURATION:-$BENCH_POINT_DURATION} devices_for "$BENCH_INCIDENT_RATE")
  seed "$name" "$devices"
  mapfile -t urls < <(replica_urls)
  log "$name: $BENCH_INCIDENT_RATE logins/s over $BENCH_INCIDENT_REPLICAS replicas of $BENCH_INCIDENT_CPU vCPU behind one pool of $pool x pipelining $pipelining, retry fixed:12s, ${INCIDENT_DURATION:-$BENCH_POINT_DURATION}"
  loadtest run "${urls[@]}" "${COMMON_NO_URL[@]}" "$@" --devices "$devices" --device-prefix "bench-$name-" \
    --rate "$BENCH_INCIDENT_RATE" --pool-size "$pool" --pipelining "$pipelining" --retry fixed:12s --seed "$BENCH_SEED" \
    --duration "${INCIDENT_DURATION:-$BENCH_POINT_DURATION}" --capacity "$INCIDENT_CAPACITY" --out "$BENCH_OUT/$name" \
    --label "$name" --progress lines 2>"$LOG_DIR/loadtest-$name.log" \
    || { tail -n 20 "$LOG_DIR/loadtest-$name.log" >&2; die "$name failed"; }
  INCIDENT_RUNS+=(--run "$name=$BENCH_OUT/$name/summary.json")
}

# A cold replica joins in the middle of the storm: the warm replicas take the storm; BENCH_COLD_AT seconds in, a new
# replica starts (no warm-up, as the HPA starts one) and joins the Service when its readiness answers; what EMQX's
# open connections do then is ON_JOIN (keep: ehttpc's own behaviour; reopen: every connection reopened).
cold_point() {
  local on_join=$1 name="incident-cold-replica-$on_join" slot port devices urls lt ready_s
  slot=replica-$(( BENCH_INCIDENT_REPLICAS + 1 ))
  port=$(replica_port $(( BENCH_INCIDENT_REPLICAS + 1 )))
  devices=$(BENCH_POINT_DURATION=$BENCH_COLD_DURATION devices_for "$BENCH_INCIDENT_RATE")
  seed "$name" "$devices"
  # The joining replica's URL is given before it starts: it serves what its warm siblings serve.
  POD_SCHEME[$port]=${POD_SCHEME[$(replica_port 1)]:-http}
  mapfile -t urls < <(replica_urls)
  log "$name: $BENCH_INCIDENT_RATE logins/s, $BENCH_COLD_DURATION; $slot starts cold at ${BENCH_COLD_AT}s and joins when ready (--on-join $on_join)"
  loadtest run "${urls[@]}" --join "$(url_of "$port")" --on-join "$on_join" --readiness-period "$BENCH_READINESS_PERIOD" \
    "${COMMON_NO_URL[@]}" --devices "$devices" --device-prefix "bench-$name-" --rate "$BENCH_INCIDENT_RATE" \
    --pool-size "$BENCH_INCIDENT_POOL" --pipelining 1 --retry fixed:12s --seed "$BENCH_SEED" --duration "$BENCH_COLD_DURATION" \
    --capacity "$INCIDENT_CAPACITY" --out "$BENCH_OUT/$name" --label "$name" --progress lines \
    >"$LOG_DIR/loadtest-$name.out" 2>"$LOG_DIR/loadtest-$name.log" &
  lt=$!
  sleep "$BENCH_COLD_AT"
  launch_pod "$slot" "$port" "$BENCH_INCIDENT_CPU" "cold-$on_join" "${PROTECTED[@]}" "${POD_TLS[@]}"
  ready_s=$(await_pod "$slot" "$port" "cold-$on_join")
  log "$name: $slot ready $ready_s s after its start"
  wait "$lt" || { tail -n 20 "$LOG_DIR/loadtest-$name.log" >&2; die "$name failed"; }
  stop_pod "$slot"
  COLD_RUNS+=("$name $slot $ready_s")
  INCIDENT_RUNS+=(--run "$name=$BENCH_OUT/$name/summary.json")
}
COLD_RUNS=()

incident() {
  local any=0 p
  for p in incident-protected incident-unprotected incident-unprotected-pipelining-100 incident-cold-replica; do
    selected "$p" && any=1
  done
  (( any )) || return 0
  INCIDENT_DURATION=$BENCH_POINT_DURATION
  pod_tls_env
  start_replicas protected "${PROTECTED[@]}" "${POD_TLS[@]}"
  INCIDENT_CAPACITY=$(incident_capacity)
  log "incident: $BENCH_INCIDENT_REPLICAS replicas of $BENCH_INCIDENT_CPU vCPU, capacity $INCIDENT_CAPACITY allows/s together"
  selected incident-protected && { incident_point incident-protected "$BENCH_INCIDENT_POOL" 1; sleep "$BENCH_SETTLE"; }
  if selected incident-cold-replica; then
    for on_join in $BENCH_COLD_ON_JOIN; do cold_point "$on_join"; sleep "$BENCH_SETTLE"; done
  fi
  if selected incident-unprotected || selected incident-unprotected-pipelining-100; then
    start_replicas unprotected "${UNPROTECTED[@]}" "${POD_TLS[@]}"
    selected incident-unprotected && { incident_point incident-unprotected "$BENCH_INCIDENT_POOL" 1; sleep "$BENCH_SETTLE"; }
    selected incident-unprotected-pipelining-100 && incident_point incident-unprotected-pipelining-100 "$BENCH_INCIDENT_POOL" 100
  fi
  stop_all_pods
}

# The incident table (compare) and each cold replica's first BENCH_COLD_SHOWN seconds after readiness, per second.
incident_table() {
  (( ${#INCIDENT_RUNS[@]} > 0 )) || return 0
  echo
  echo "Incident replay: $BENCH_INCIDENT_REPLICAS replicas of $BENCH_INCIDENT_CPU vCPU (a cgroup each, $(pod_cgroup_kind)) behind one" \
    "EMQX pool of $BENCH_INCIDENT_POOL connections (each opened once to a replica picked at random, and kept)," \
    "$BENCH_INCIDENT_RATE logins/s offered, retry fixed:12s, request_timeout $BENCH_REQUEST_TIMEOUT; capacity" \
    "= the replicas' honest capacities summed: $INCIDENT_CAPACITY allows/s"
  # compare divides by a capacity run's steady-state goodput: the replicas' sum, written as one.
  mkdir -p "$BENCH_OUT/incident-capacity"
  printf '{ "label" : "incident-capacity", "steady_state" : { "goodput" : %s } }\n' "$INCIDENT_CAPACITY" \
    >"$BENCH_OUT/incident-capacity/summary.json"
  java -jar "$LOADTEST_JAR" compare --capacity "$BENCH_OUT/incident-capacity/summary.json" "${INCIDENT_RUNS[@]}" \
    --out "$BENCH_OUT/incident" | tee "$BENCH_OUT/incident-table.txt"
  local run name slot ready_s
  for run in "${COLD_RUNS[@]}"; do
    read -r name slot ready_s <<<"$run"
    echo
    echo "$name: $slot started cold at ${BENCH_COLD_AT}s, ready after $ready_s s; per second from its readiness" \
      "(allows = in time at EMQX; the Service = every replica):"
    figure cold-replica --replicas-csv "$BENCH_OUT/$name/replicas.csv" --slot "$slot" --shown "$BENCH_COLD_SHOWN" \
      --capacity "$INCIDENT_CAPACITY" --replicas "$BENCH_INCIDENT_REPLICAS" | tee -a "$BENCH_OUT/incident-table.txt"
  done
}
