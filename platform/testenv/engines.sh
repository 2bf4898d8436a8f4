#!/usr/bin/env bash
# engines.sh: the real engines the test suite runs against, as local processes on loopback.
#
# There is no container engine on the development and CI machines, so PostgreSQL, Redis and
# ClickHouse come from Debian's packages and Apache Kafka (KRaft mode) from Maven Central jars
# run with the machine's Java 17. Each listens on 127.0.0.1 on a non-default port, and keeps
# all of its state (data, logs, pid files, jars) under
#     ${VIGIL_ENGINES_DIR:-$HOME/.cache/vigil-engines}
# so a second run on the same machine reuses data and downloads. One exception: run as root,
# PostgreSQL (which runs as the postgres user) keeps its folder in
#     /var/lib/vigil-engines/pg-<hash of the state folder's path>
# so that no folder's permissions (the user's home above all) need changing for it to be reached.
#
# `up` also installs Schemathesis (the OpenAPI-driven API tester, from PyPI) into a Python
# virtual environment under the same folder, once per pinned version; `env` names its `st`.
# aiosmtpd and the OpenTelemetry SDK get venvs of their own the same way.
#
# Usage: platform/testenv/engines.sh [COMMAND]
#   up                 install what is missing, start every engine not running, wait until each
#                      answers a real query, print its version, install Schemathesis if
#                      missing, write $STATE/env  (default)
#   down               stop every engine
#   start NAME         start one engine (reusing its data) and wait until it answers
#   stop NAME          stop one engine for real (the process is gone and its port closed)
#   restart NAME       stop, then start
#   kill NAME          crash one engine: SIGKILL (PostgreSQL: pg_ctl stop -m immediate)
#   status             one line per engine: up or down (exit status 3 when one is down)
#   env                print the `export VIGIL_TEST_...=` lines for the tests
#   explain            install shap, lime and XGBoost for the explanation benchmarks (not in up)
#   versions           print each running engine's version
#   kafka-topics ARGS  run Kafka's TopicCommand against the test broker
#   logs NAME          print the path of an engine's log file
#   gitea-build        build Gitea (the real forge of the code-host test) in the foreground (up
#                      starts the same build in the background)
# NAME is one of: postgres redis clickhouse kafka
#
# Environment: VIGIL_ENGINES_DIR (state folder), VIGIL_ENGINES_TIMEOUT (seconds to wait for an
# engine to answer, default 180), VIGIL_ENGINES_PORT_OFFSET (added to every port, default 0: a
# second set of engines, e.g. VIGIL_ENGINES_DIR=$HOME/.cache/vigil-engines-pipeline
# VIGIL_ENGINES_PORT_OFFSET=1000, runs beside the first; `env` prints its URLs).
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
HOME="${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}"
export HOME
STATE="${VIGIL_ENGINES_DIR:-$HOME/.cache/vigil-engines}"
TIMEOUT="${VIGIL_ENGINES_TIMEOUT:-180}"
HOST=127.0.0.1

# VIGIL_ENGINES_PORT_OFFSET shifts every port, so that a second set of engines (with a
# VIGIL_ENGINES_DIR of its own) runs beside the shared one: fault tests that stop engines run
# on such a private set, leaving the shared engines to everyone else.
PORT_OFFSET="${VIGIL_ENGINES_PORT_OFFSET:-0}"
case "$PORT_OFFSET" in '' | *[!0-9]*) echo "engines: ERROR: VIGIL_ENGINES_PORT_OFFSET: want a whole number, got '$PORT_OFFSET'" >&2; exit 1 ;; esac
PG_PORT=$((55432 + PORT_OFFSET))
REDIS_PORT=$((56379 + PORT_OFFSET))
CH_TCP_PORT=$((59000 + PORT_OFFSET))
CH_HTTP_PORT=$((58123 + PORT_OFFSET))
KAFKA_PORT=$((59092 + PORT_OFFSET))
KAFKA_CONTROLLER_PORT=$((59093 + PORT_OFFSET))

PG_USER=vigil
PG_PASSWORD=vigil
PG_DB=vigil

KAFKA_POM="$SCRIPT_DIR/kafka/pom.xml"

ENGINES=(postgres redis clickhouse kafka)

# ---------------------------------------------------------------------------------------------
# small helpers

log() { printf 'engines: %s\n' "$*" >&2; }
die() { printf 'engines: ERROR: %s\n' "$*" >&2; exit 1; }

is_root() { [ "$(id -u)" = 0 ]; }

# port_open PORT: something accepts TCP connections on 127.0.0.1:PORT.
port_open() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }

# pid_alive PID MARKER: PID is a live process whose command line contains MARKER.
pid_alive() {
  local pid="$1" marker="$2" cmd
  [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] || return 1
  cmd="$({ tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null)" || return 1
  [ -n "$cmd" ] && [[ "$cmd" == *"$marker"* ]]
}

# pids_matching STRING: pids of processes whose command line contains STRING.
pids_matching() {
  local f pid cmd
  for f in /proc/[0-9]*/cmdline; do
    pid="${f#/proc/}"; pid="${pid%/cmdline}"
    [ "$pid" = "$$" ] && continue
    cmd="$({ tr '\0' ' ' <"$f"; } 2>/dev/null)" || continue
    [[ "$cmd" == *"$1"* ]] && echo "$pid"
  done
  return 0
}

read_pid() { [ -s "$1" ] && head -n1 "$1" | tr -dc '0-9' || true; }

# wait_gone PID PORT SECONDS: wait until PID (if not empty) has exited and PORT is closed.
wait_gone() {
  local pid="$1" port="$2" secs="$3" i
  for ((i = 0; i < secs * 5; i++)); do
    if { [ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null; } && ! port_open "$port"; then return 0; fi
    sleep 0.2
  done
  return 1
}

# term_then_kill PID PORT NAME: SIGTERM, wait up to 60 s, then SIGKILL.
term_then_kill() {
  local pid="$1" port="$2" name="$3"
  kill -TERM "$pid" 2>/dev/null || true
  if ! wait_gone "$pid" "$port" 60; then
    log "$name (pid $pid) did not stop within 60s of SIGTERM: sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    wait_gone "$pid" "$port" 30 || die "$name (pid $pid) still running or port $port still open after SIGKILL"
  fi
}

# crash NAME PID PORT: SIGKILL an engine, as a machine failure would, and wait until it is gone.
crash() {
  log "$1: crashing (SIGKILL)"
  kill -KILL "$2"
  wait_gone "$2" "$3" 30 || die "$1 still running after SIGKILL"
}

# CLOSE_FDS: a bash prefix that closes every inherited descriptor above 2 (the lock, a
# caller's pipes) so an engine never keeps its caller's pipes open, then runs "$@".
CLOSE_FDS='for f in /proc/$$/fd/*; do n=${f##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-" 2>/dev/null; done; '

# nofds CMD...: run CMD (in the foreground) with only stdin, stdout and stderr inherited.
nofds() { bash -c "$CLOSE_FDS"'exec "$@"' nofds "$@"; }

# spawn PIDFILE LOGFILE CMD...: run CMD detached (own session, stdin from /dev/null, no other
# inherited descriptors), appending its output to LOGFILE, and record its pid in PIDFILE.
spawn() {
  local pidfile="$1" logfile="$2"; shift 2
  rm -f "$pidfile"
  setsid bash -c "$CLOSE_FDS"'echo $$ >"$0"; exec "$@"' "$pidfile" "$@" </dev/null >>"$logfile" 2>&1 &
  local i
  for ((i = 0; i < 50; i++)); do [ -s "$pidfile" ] && return 0; sleep 0.1; done
  die "could not start: $*"
}

fail_engine() {
  local name="$1" why="$2" logfile="$3"
  {
    printf 'engines: ERROR: %s did not come up: %s\n' "$name" "$why"
    if [ -f "$logfile" ]; then
      printf 'engines: last 40 lines of %s:\n' "$logfile"
      tail -n 40 "$logfile" | sed 's/^/    /'
    else
      printf 'engines: no log file at %s\n' "$logfile"
    fi
  } >&2
  exit 1
}

check_port_free() {
  local name="$1" port="$2"
  if port_open "$port"; then
    die "$name: port $HOST:$port is already taken by another process (not the engine started from $STATE); stop it or free the port"
  fi
}

# ---------------------------------------------------------------------------------------------
# installation

APT_UPDATED=0

apt_retry() {
  local out i rc
  for ((i = 1; i <= 60; i++)); do
    rc=0
    out="$(DEBIAN_FRONTEND=noninteractive "$@" 2>&1)" || rc=$?
    if [ "$rc" = 0 ]; then return 0; fi
    if grep -qiE 'could not get lock|unable to acquire|lock-frontend|is another process using it|dpkg was interrupted' <<<"$out"; then
      if grep -qi 'dpkg was interrupted' <<<"$out"; then
        log "dpkg was interrupted: running dpkg --configure -a"
        DEBIAN_FRONTEND=noninteractive dpkg --configure -a >&2 || true
      else
        log "apt is locked by another process: retrying in 5s ($i/60)"
        sleep 5
      fi
      continue
    fi
    printf '%s\n' "$out" | tail -n 30 >&2
    return "$rc"
  done
  printf '%s\n' "$out" | tail -n 30 >&2
  return 1
}

apt_install() {
  local sudo=()
  if ! is_root; then
    command -v sudo >/dev/null || die "missing packages ($*) and not root: install them with apt-get install $*"
    sudo=(sudo -n)
  fi
  if [ "$APT_UPDATED" = 0 ]; then
    log "apt-get update"
    apt_retry "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=300 update || die "apt-get update failed"
    APT_UPDATED=1
  fi
  log "apt-get install -y $*"
  apt_retry "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=300 install -y --no-install-recommends "$@" ||
    die "apt-get install $* failed"
}

pg_bindir() {
  local want="" d
  if [ -s "$PGDATA/PG_VERSION" ]; then
    want="$(cat "$PGDATA/PG_VERSION")"
    [ -x "/usr/lib/postgresql/$want/bin/pg_ctl" ] && { echo "/usr/lib/postgresql/$want/bin"; return 0; }
  fi
  d="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1 || true)"
  [ -n "$d" ] && [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && echo "$d"
}

# clickhouse_server_cmd prints the command that runs the server: clickhouse-server, or the
# single `clickhouse` binary with its `server` mode.
clickhouse_server_cmd() {
  local p
  for p in "$(command -v clickhouse-server 2>/dev/null || true)" /usr/sbin/clickhouse-server /usr/bin/clickhouse-server; do
    [ -n "$p" ] && [ -x "$p" ] && { echo "$p"; return 0; }
  done
  p="$(command -v clickhouse 2>/dev/null || true)"
  [ -n "$p" ] && { echo "$p server"; return 0; }
  return 1
}

ensure_installed() {
  local pkgs=()
  pg_bindir >/dev/null || pkgs+=(postgresql)
  { command -v redis-server && command -v redis-cli; } >/dev/null 2>&1 || pkgs+=(redis-server redis-tools)
  clickhouse_server_cmd >/dev/null || pkgs+=(clickhouse-server clickhouse-client)
  command -v java >/dev/null || pkgs+=(openjdk-17-jre-headless)
  command -v mvn >/dev/null || pkgs+=(maven)
  command -v curl >/dev/null || pkgs+=(curl)
  [ -x "$SSHD_BIN" ] || pkgs+=(openssh-server)
  [ -x "$CHROMIUM_BIN" ] || pkgs+=(chromium)
  if [ "${#pkgs[@]}" -gt 0 ]; then
    apt_install "${pkgs[@]}"
  fi
  pg_bindir >/dev/null || die "PostgreSQL binaries not found under /usr/lib/postgresql/*/bin after install"
  clickhouse_server_cmd >/dev/null || die "clickhouse-server binary not found after install"
  stop_package_clickhouse
}

# Debian's clickhouse-server package ships a service using /etc/clickhouse-server and ports
# 9000/8123. The tests use their own server; make sure the package's one is neither running
# nor enabled to start at boot.
stop_package_clickhouse() {
  local pids pid
  pids="$(pids_matching /etc/clickhouse-server/config.xml)"
  if [ -n "$pids" ]; then
    log "stopping the clickhouse-server package service (pids: $(echo $pids))"
    if command -v service >/dev/null && is_root; then service clickhouse-server stop >/dev/null 2>&1 || true; fi
    for pid in $pids; do
      if kill -0 "$pid" 2>/dev/null; then kill -TERM "$pid" 2>/dev/null || true; fi
    done
    for pid in $pids; do wait_gone "$pid" 9000 30 || kill -KILL "$pid" 2>/dev/null || true; done
  fi
  if is_root && [ ! -e "$STATE/.clickhouse-service-disabled" ] && [ -e /etc/init.d/clickhouse-server ]; then
    if [ -d /run/systemd/system ] && command -v systemctl >/dev/null; then
      systemctl disable --now clickhouse-server >/dev/null 2>&1 || true
    fi
    if command -v update-rc.d >/dev/null; then update-rc.d clickhouse-server disable >/dev/null 2>&1 || true; fi
    mkdir -p "$STATE" && touch "$STATE/.clickhouse-service-disabled"
  fi
}

# ---------------------------------------------------------------------------------------------
# PostgreSQL

# PostgreSQL refuses to run as root. As root, its folder is therefore one the postgres user
# reaches with no permission changed on the way (never the user's home): under /var/lib, keyed by
# the state folder, so that each VIGIL_ENGINES_DIR keeps its own data and a second run finds it
# again. As any other user the server runs as that user, in the state folder.
LEGACY_PG_DIR="$STATE/postgres"
if is_root; then
  PG_DIR="/var/lib/vigil-engines/pg-$(printf '%s' "$STATE" | sha256sum | cut -c1-12)"
else
  PG_DIR="$LEGACY_PG_DIR"
fi
# Data an earlier version of this script kept under the state folder as root moves to PG_DIR on
# the next start; while its server still runs, it is used where it is.
PG_MOVE_LEGACY=0
if [ "$PG_DIR" != "$LEGACY_PG_DIR" ] && [ -s "$LEGACY_PG_DIR/data/PG_VERSION" ] && [ ! -e "$PG_DIR" ]; then
  if pid_alive "$(read_pid "$LEGACY_PG_DIR/data/postmaster.pid")" "$LEGACY_PG_DIR/data"; then
    PG_DIR="$LEGACY_PG_DIR"
  else
    PG_MOVE_LEGACY=1
  fi
fi
PGDATA="$PG_DIR/data"
PG_LOG="$PG_DIR/postgres.log"

pg_sockdir() {
  local d="$PG_DIR/run"
  # A Unix socket path is limited to 107 bytes.
  if [ "${#d}" -gt 80 ]; then d="/tmp/vigil-engines-pg-$(id -u)-$PG_PORT"; fi
  echo "$d"
}

# as_pg CMD...: run CMD as the PostgreSQL system user when root (initdb and the server refuse root).
as_pg() {
  if is_root; then runuser -u postgres -- "$@"; else "$@"; fi
}

pg_running() {
  local pid
  pid="$(read_pid "$PGDATA/postmaster.pid")"
  pid_alive "$pid" "$PGDATA"
}

# pg_place_dir: create PG_DIR (moving an earlier version's data into it), owned by the server's user.
pg_place_dir() {
  if [ "$PG_MOVE_LEGACY" = 1 ] && [ ! -e "$PG_DIR" ]; then
    log "postgres: moving $LEGACY_PG_DIR to $PG_DIR (out of the state folder, which the postgres user need not reach)"
    mkdir -p "$(dirname "$PG_DIR")"
    chmod 755 "$(dirname "$PG_DIR")"
    mv "$LEGACY_PG_DIR" "$PG_DIR"
  fi
  if is_root; then
    mkdir -p "$(dirname "$PG_DIR")"
    chmod 755 "$(dirname "$PG_DIR")"
  fi
  mkdir -p "$PG_DIR"
  if is_root; then chown postgres:postgres "$PG_DIR"; fi
  chmod 700 "$PG_DIR"
}

pg_init() {
  local bin sock
  bin="$(pg_bindir)"
  sock="$(pg_sockdir)"
  pg_place_dir
  mkdir -p "$sock"
  if is_root; then chown postgres:postgres "$sock"; fi
  if [ ! -s "$PGDATA/PG_VERSION" ]; then
    log "postgres: initdb $PGDATA"
    rm -rf "$PGDATA"
    as_pg "$bin/initdb" -D "$PGDATA" -U postgres -E UTF8 --locale=C \
      --auth-local=peer --auth-host=scram-sha-256 >"$PG_DIR/initdb.log" 2>&1 ||
      fail_engine postgres "initdb failed" "$PG_DIR/initdb.log"
  fi
  # Our settings, rewritten on every start (ports or paths may have changed).
  as_pg bash -c 'cat >"$0"' "$PGDATA/vigil.conf" <<EOF
# Written by platform/testenv/engines.sh on each start.
listen_addresses = '$HOST'
port = $PG_PORT
unix_socket_directories = '$sock'
max_connections = 200
password_encryption = 'scram-sha-256'
EOF
  if ! grep -q "^include_if_exists = 'vigil.conf'" "$PGDATA/postgresql.conf"; then
    as_pg bash -c 'echo "include_if_exists = '"'"'vigil.conf'"'"'" >>"$0"' "$PGDATA/postgresql.conf"
  fi
}

pg_start() {
  if pg_running; then return 0; fi
  check_port_free postgres "$PG_PORT"
  pg_init
  local bin sock
  bin="$(pg_bindir)"
  sock="$(pg_sockdir)"
  mkdir -p "$sock"
  if is_root; then chown postgres:postgres "$sock"; fi
  if is_root; then touch "$PG_LOG" && chown postgres:postgres "$PG_LOG"; fi
  log "postgres: starting on $HOST:$PG_PORT"
  local as=()
  if is_root; then as=(runuser -u postgres --); fi
  nofds "${as[@]}" "$bin/pg_ctl" -D "$PGDATA" -l "$PG_LOG" -w -t "$TIMEOUT" start </dev/null >/dev/null ||
    fail_engine postgres "pg_ctl start failed" "$PG_LOG"
}

pg_admin_psql() {
  as_pg "$(pg_bindir)/psql" -X -q -v ON_ERROR_STOP=1 -h "$(pg_sockdir)" -p "$PG_PORT" -U postgres -d postgres "$@"
}

pg_url() { echo "postgres://$PG_USER:$PG_PASSWORD@$HOST:$PG_PORT/$PG_DB?sslmode=disable"; }

pg_query() { PGCONNECT_TIMEOUT=5 "$(pg_bindir)/psql" -X -A -t -q "$(pg_url)" -c "$1" 2>&1; }

pg_wait() {
  local deadline=$((SECONDS + TIMEOUT)) out=""
  # The vigil role and database: created once, idempotently.
  until out="$(pg_admin_psql -Atc 'select 1' 2>&1)"; do
    pg_running || fail_engine postgres "the server exited: $out" "$PG_LOG"
    [ "$SECONDS" -lt "$deadline" ] || fail_engine postgres "no answer within ${TIMEOUT}s: $out" "$PG_LOG"
    sleep 0.5
  done
  pg_admin_psql <<SQL >/dev/null || fail_engine postgres "could not create role/database $PG_USER" "$PG_LOG"
DO \$\$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$PG_USER') THEN
    CREATE ROLE $PG_USER LOGIN CREATEDB PASSWORD '$PG_PASSWORD';
  ELSE
    ALTER ROLE $PG_USER LOGIN CREATEDB PASSWORD '$PG_PASSWORD';
  END IF;
END \$\$;
SELECT 'CREATE DATABASE $PG_DB OWNER $PG_USER' WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = '$PG_DB')
\gexec
SQL
  until out="$(pg_query 'select 1')" && [ "$out" = 1 ]; do
    pg_running || fail_engine postgres "the server exited: $out" "$PG_LOG"
    [ "$SECONDS" -lt "$deadline" ] || fail_engine postgres "select 1 as $PG_USER failed within ${TIMEOUT}s: $out" "$PG_LOG"
    sleep 0.5
  done
}

pg_stop() {
  pg_running || return 0
  log "postgres: stopping"
  as_pg "$(pg_bindir)/pg_ctl" -D "$PGDATA" -m fast -w -t 60 stop >/dev/null ||
    die "postgres: pg_ctl stop failed (see $PG_LOG)"
}

pg_kill() {
  pg_running || return 0
  log "postgres: crashing (pg_ctl stop -m immediate)"
  as_pg "$(pg_bindir)/pg_ctl" -D "$PGDATA" -m immediate -w -t 60 stop >/dev/null ||
    die "postgres: pg_ctl stop -m immediate failed (see $PG_LOG)"
}

pg_version() { pg_query 'show server_version' | head -n1 | sed 's/^/PostgreSQL /'; }

# ---------------------------------------------------------------------------------------------
# Redis

REDIS_DIR="$STATE/redis"
REDIS_PIDFILE="$REDIS_DIR/redis.pid"
REDIS_LOG="$REDIS_DIR/redis.log"

redis_running() { pid_alive "$(read_pid "$REDIS_PIDFILE")" "redis-server"; }

redis_start() {
  if redis_running; then return 0; fi
  check_port_free redis "$REDIS_PORT"
  mkdir -p "$REDIS_DIR/data"
  cat >"$REDIS_DIR/redis.conf" <<EOF
# Written by platform/testenv/engines.sh on each start.
bind $HOST
port $REDIS_PORT
protected-mode yes
daemonize yes
pidfile $REDIS_PIDFILE
logfile $REDIS_LOG
dir $REDIS_DIR/data
save ""
appendonly no
EOF
  rm -f "$REDIS_PIDFILE"
  log "redis: starting on $HOST:$REDIS_PORT"
  nofds redis-server "$REDIS_DIR/redis.conf" </dev/null >>"$REDIS_LOG" 2>&1 ||
    fail_engine redis "redis-server failed to start" "$REDIS_LOG"
}

redis_cli() { redis-cli -h "$HOST" -p "$REDIS_PORT" "$@"; }

redis_wait() {
  local deadline=$((SECONDS + TIMEOUT)) out=""
  until out="$(redis_cli ping 2>&1)" && [ "$out" = PONG ]; do
    [ "$SECONDS" -lt "$deadline" ] || fail_engine redis "PING got no PONG within ${TIMEOUT}s: $out" "$REDIS_LOG"
    # redis-server writes its pid file right after it daemonizes.
    if [ -s "$REDIS_PIDFILE" ] && ! redis_running; then fail_engine redis "the server exited: $out" "$REDIS_LOG"; fi
    sleep 0.2
  done
}

redis_stop() {
  local pid
  pid="$(read_pid "$REDIS_PIDFILE")"
  redis_running || return 0
  log "redis: stopping"
  redis_cli shutdown nosave >/dev/null 2>&1 || true
  wait_gone "$pid" "$REDIS_PORT" 30 || term_then_kill "$pid" "$REDIS_PORT" redis
}

redis_kill() { redis_running || return 0; crash redis "$(read_pid "$REDIS_PIDFILE")" "$REDIS_PORT"; }

redis_version() { redis_cli info server | tr -d '\r' | sed -n 's/^redis_version:/Redis /p'; }

# ---------------------------------------------------------------------------------------------
# ClickHouse

CH_DIR="$STATE/clickhouse"
CH_PIDFILE="$CH_DIR/clickhouse.pid"
CH_LOG="$CH_DIR/log/clickhouse-server.log"
CH_ERRLOG="$CH_DIR/log/clickhouse-server.err.log"
CH_STDOUT="$CH_DIR/log/stdout.log"

ch_running() { pid_alive "$(read_pid "$CH_PIDFILE")" "$CH_DIR/config.xml"; }

ch_write_config() {
  mkdir -p "$CH_DIR/data" "$CH_DIR/tmp" "$CH_DIR/user_files" "$CH_DIR/format_schemas" "$CH_DIR/log"
  cat >"$CH_DIR/config.xml" <<EOF
<?xml version="1.0"?>
<!-- Written by platform/testenv/engines.sh on each start. Works on ClickHouse 18.16 (Debian) and later. -->
<yandex>
    <logger>
        <level>information</level>
        <log>$CH_LOG</log>
        <errorlog>$CH_ERRLOG</errorlog>
        <size>100M</size>
        <count>3</count>
    </logger>
    <listen_host>$HOST</listen_host>
    <tcp_port>$CH_TCP_PORT</tcp_port>
    <http_port>$CH_HTTP_PORT</http_port>
    <max_connections>1024</max_connections>
    <keep_alive_timeout>3</keep_alive_timeout>
    <max_concurrent_queries>100</max_concurrent_queries>
    <uncompressed_cache_size>268435456</uncompressed_cache_size>
    <mark_cache_size>268435456</mark_cache_size>
    <path>$CH_DIR/data/</path>
    <tmp_path>$CH_DIR/tmp/</tmp_path>
    <user_files_path>$CH_DIR/user_files/</user_files_path>
    <format_schema_path>$CH_DIR/format_schemas/</format_schema_path>
    <users_config>$CH_DIR/users.xml</users_config>
    <default_profile>default</default_profile>
    <default_database>default</default_database>
    <timezone>UTC</timezone>
    <mlock_executable>false</mlock_executable>
    <builtin_dictionaries_reload_interval>3600</builtin_dictionaries_reload_interval>
    <max_session_timeout>3600</max_session_timeout>
    <default_session_timeout>60</default_session_timeout>
</yandex>
EOF
  cat >"$CH_DIR/users.xml" <<'EOF'
<?xml version="1.0"?>
<!-- Written by platform/testenv/engines.sh: user `default`, no password, from loopback only. -->
<yandex>
    <profiles>
        <default>
            <max_memory_usage>4000000000</max_memory_usage>
            <use_uncompressed_cache>0</use_uncompressed_cache>
            <load_balancing>random</load_balancing>
        </default>
        <readonly>
            <readonly>1</readonly>
        </readonly>
    </profiles>
    <users>
        <default>
            <password></password>
            <networks>
                <ip>127.0.0.1</ip>
                <ip>::1</ip>
            </networks>
            <profile>default</profile>
            <quota>default</quota>
        </default>
    </users>
    <quotas>
        <default>
            <interval>
                <duration>3600</duration>
                <queries>0</queries>
                <errors>0</errors>
                <result_rows>0</result_rows>
                <read_rows>0</read_rows>
                <execution_time>0</execution_time>
            </interval>
        </default>
    </quotas>
</yandex>
EOF
}

ch_start() {
  if ch_running; then return 0; fi
  stop_package_clickhouse
  check_port_free clickhouse "$CH_TCP_PORT"
  check_port_free clickhouse "$CH_HTTP_PORT"
  ch_write_config
  local cmd
  read -r -a cmd <<<"$(clickhouse_server_cmd)"
  log "clickhouse: starting on $HOST:$CH_TCP_PORT (native), $HOST:$CH_HTTP_PORT (http)"
  # Run in the foreground of its own session (not --daemon) so the pid file holds the server.
  (cd "$CH_DIR" && spawn "$CH_PIDFILE" "$CH_STDOUT" "${cmd[@]}" --config-file="$CH_DIR/config.xml")
}

ch_http() { curl -sS --max-time 10 "http://$HOST:$CH_HTTP_PORT/" --data-binary "$1" 2>&1; }

ch_wait() {
  local deadline=$((SECONDS + TIMEOUT)) out=""
  until out="$(ch_http 'SELECT 1')" && [ "$out" = 1 ]; do
    if ! ch_running; then
      local lf="$CH_ERRLOG"; [ -s "$lf" ] || lf="$CH_STDOUT"
      fail_engine clickhouse "the server exited: $out" "$lf"
    fi
    [ "$SECONDS" -lt "$deadline" ] || fail_engine clickhouse "SELECT 1 over HTTP failed within ${TIMEOUT}s: $out" "$CH_LOG"
    sleep 0.5
  done
  out="$(ch_http 'SELECT version()')"
  [[ "$out" =~ ^[0-9]+\. ]] || fail_engine clickhouse "SELECT version() answered: $out" "$CH_LOG"
}

ch_stop() {
  ch_running || return 0
  log "clickhouse: stopping"
  term_then_kill "$(read_pid "$CH_PIDFILE")" "$CH_TCP_PORT" clickhouse
  wait_gone "" "$CH_HTTP_PORT" 30 || die "clickhouse: port $CH_HTTP_PORT still open after stop"
}

ch_kill() { ch_running || return 0; crash clickhouse "$(read_pid "$CH_PIDFILE")" "$CH_TCP_PORT"; }

ch_version() { ch_http 'SELECT version()' | sed 's/^/ClickHouse /'; }

# ---------------------------------------------------------------------------------------------
# Kafka (KRaft, one combined broker+controller node)

KAFKA_DIR="$STATE/kafka"
KAFKA_LIBS="$KAFKA_DIR/libs"
KAFKA_DATA="$KAFKA_DIR/data"
KAFKA_PIDFILE="$KAFKA_DIR/kafka.pid"
KAFKA_LOG="$KAFKA_DIR/kafka.log"
KAFKA_PROPS="$KAFKA_DIR/server.properties"

kafka_running() { pid_alive "$(read_pid "$KAFKA_PIDFILE")" "$KAFKA_PROPS"; }

# kafka_libs: the jars listed by platform/testenv/kafka/pom.xml, copied once. Maven's own cache
# (~/.m2) keeps them across state folders; the copy is redone only when the pom changes.
kafka_libs() {
  local sum
  sum="$(sha256sum "$KAFKA_POM" | cut -d' ' -f1)"
  if [ -f "$KAFKA_LIBS/.pom.sha256" ] && [ "$(cat "$KAFKA_LIBS/.pom.sha256")" = "$sum" ] &&
    compgen -G "$KAFKA_LIBS/kafka_2.13-*.jar" >/dev/null; then
    return 0
  fi
  mkdir -p "$KAFKA_DIR"
  log "kafka: fetching jars with Maven (mvn dependency:copy-dependencies, log: $KAFKA_DIR/mvn.log)"
  rm -rf "$KAFKA_LIBS.tmp"
  if ! MAVEN_OPTS="${MAVEN_OPTS:-} -Dstyle.color=never" mvn -B -q -f "$KAFKA_POM" \
    dependency:copy-dependencies -DoutputDirectory="$KAFKA_LIBS.tmp" >"$KAFKA_DIR/mvn.log" 2>&1 9>&-; then
    fail_engine kafka "mvn dependency:copy-dependencies failed" "$KAFKA_DIR/mvn.log"
  fi
  echo "$sum" >"$KAFKA_LIBS.tmp/.pom.sha256"
  rm -rf "$KAFKA_LIBS"
  mv "$KAFKA_LIBS.tmp" "$KAFKA_LIBS"
}

kafka_version() {
  local j
  j="$(compgen -G "$KAFKA_LIBS/kafka_2.13-*.jar" | head -n1)"
  j="${j##*/kafka_2.13-}"
  echo "Apache Kafka ${j%.jar} (KRaft)"
}

kafka_write_config() {
  mkdir -p "$KAFKA_DATA"
  cat >"$KAFKA_PROPS" <<EOF
# Written by platform/testenv/engines.sh on each start: one node, broker and controller (KRaft).
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@$HOST:$KAFKA_CONTROLLER_PORT
listeners=PLAINTEXT://$HOST:$KAFKA_PORT,CONTROLLER://$HOST:$KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://$HOST:$KAFKA_PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$KAFKA_DATA
num.partitions=1
num.network.threads=2
num.io.threads=4
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
min.insync.replicas=1
default.replication.factor=1
auto.create.topics.enable=true
delete.topic.enable=true
group.initial.rebalance.delay.ms=0
# A restarted node re-registers only once its previous session expired: keep that short.
broker.heartbeat.interval.ms=1000
broker.session.timeout.ms=4000
log.retention.hours=168
EOF
  cat >"$KAFKA_DIR/log4j2.properties" <<'EOF'
# The broker logs to stdout, which engines.sh appends to kafka.log.
status = warn
appender.out.type = Console
appender.out.name = STDOUT
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.out.ref = STDOUT
logger.request.name = kafka.request.logger
logger.request.level = WARN
logger.controller.name = kafka.controller
logger.controller.level = INFO
logger.state.name = state.change.logger
logger.state.level = WARN
EOF
  cat >"$KAFKA_DIR/tools-log4j2.properties" <<'EOF'
status = error
appender.err.type = Console
appender.err.name = STDERR
appender.err.target = SYSTEM_ERR
appender.err.layout.type = PatternLayout
appender.err.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = WARN
rootLogger.appenderRef.err.ref = STDERR
EOF
}

kafka_java() {
  java -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Djava.awt.headless=true \
    -Dlog4j2.configurationFile="$KAFKA_DIR/tools-log4j2.properties" -cp "$KAFKA_LIBS/*" "$@"
}

kafka_format() {
  [ -s "$KAFKA_DATA/meta.properties" ] && return 0
  local id
  if [ ! -s "$KAFKA_DIR/cluster.id" ]; then
    id="$(kafka_java kafka.tools.StorageTool random-uuid 2>"$KAFKA_DIR/format.log" | tail -n1)" ||
      fail_engine kafka "kafka-storage random-uuid failed" "$KAFKA_DIR/format.log"
    echo "$id" >"$KAFKA_DIR/cluster.id"
  fi
  id="$(cat "$KAFKA_DIR/cluster.id")"
  log "kafka: formatting storage $KAFKA_DATA (cluster id $id)"
  kafka_java kafka.tools.StorageTool format -t "$id" -c "$KAFKA_PROPS" >>"$KAFKA_DIR/format.log" 2>&1 ||
    fail_engine kafka "kafka-storage format failed" "$KAFKA_DIR/format.log"
}

kafka_start() {
  if kafka_running; then return 0; fi
  check_port_free kafka "$KAFKA_PORT"
  check_port_free kafka "$KAFKA_CONTROLLER_PORT"
  kafka_libs
  kafka_write_config
  kafka_format
  log "kafka: starting on $HOST:$KAFKA_PORT (controller $HOST:$KAFKA_CONTROLLER_PORT)"
  echo "----- $(date -u +%FT%TZ) engines.sh start -----" >>"$KAFKA_LOG"
  spawn "$KAFKA_PIDFILE" "$KAFKA_LOG" java -Xms256m -Xmx512m -XX:+UseG1GC -XX:MaxGCPauseMillis=20 \
    -Djava.awt.headless=true -Dlog4j2.configurationFile="$KAFKA_DIR/log4j2.properties" \
    -Dkafka.logs.dir="$KAFKA_DIR" -cp "$KAFKA_LIBS/*" kafka.Kafka "$KAFKA_PROPS"
}

kafka_topics() {
  kafka_java org.apache.kafka.tools.TopicCommand --bootstrap-server "$HOST:$KAFKA_PORT" "$@"
}

kafka_wait() {
  local deadline=$((SECONDS + TIMEOUT)) out=""
  until port_open "$KAFKA_PORT"; do
    kafka_running || fail_engine kafka "the broker exited" "$KAFKA_LOG"
    [ "$SECONDS" -lt "$deadline" ] || fail_engine kafka "port $KAFKA_PORT not open within ${TIMEOUT}s" "$KAFKA_LOG"
    sleep 0.5
  done
  # A real metadata request: list the topics.
  until out="$(timeout 60 "$SCRIPT_DIR/engines.sh" kafka-topics --list 2>&1 9>&-)"; do
    kafka_running || fail_engine kafka "the broker exited; last tool output: $out" "$KAFKA_LOG"
    [ "$SECONDS" -lt "$deadline" ] || fail_engine kafka "TopicCommand --list failed within ${TIMEOUT}s: $out" "$KAFKA_LOG"
    sleep 1
  done
}

kafka_stop() {
  kafka_running || return 0
  log "kafka: stopping"
  term_then_kill "$(read_pid "$KAFKA_PIDFILE")" "$KAFKA_PORT" kafka
  wait_gone "" "$KAFKA_CONTROLLER_PORT" 30 || die "kafka: port $KAFKA_CONTROLLER_PORT still open after stop"
}

kafka_kill() { kafka_running || return 0; crash kafka "$(read_pid "$KAFKA_PIDFILE")" "$KAFKA_PORT"; }

# ---------------------------------------------------------------------------------------------
# Schemathesis: OpenAPI-driven API testing (app/schemathesis_test.go), from PyPI.
#
# Installed into a virtual environment under $STATE with the machine's Python (3.11 or newer),
# every package pinned so that a cold CI machine tests with exactly what the developers did.
# The venv is reused while $ST_VENV/.installed holds the checksum of the pins below; changing a
# pin reinstalls. pip's own cache (~/.cache/pip) keeps the wheels across state folders.

SCHEMATHESIS_VERSION=4.32.5
ST_VENV="$STATE/schemathesis"
ST_BIN="$ST_VENV/bin/st"

# st_requirements: schemathesis and its dependencies, as `pip freeze` lists them in a fresh venv
# with schemathesis==$SCHEMATHESIS_VERSION installed. Keep them in step when bumping it.
st_requirements() {
  cat <<EOF
schemathesis==$SCHEMATHESIS_VERSION
anyio==4.16.0
certifi==2026.10.18
charset-normalizer==3.5.2
click==8.5.1
graphql-core==3.3.2
harfile==0.6.0
hypothesis==6.170.15
hypothesis-graphql==0.13.5
idna==3.20
iniconfig==2.3.1
jsonschema_rs==0.60.3
markdown-it-py==4.3.0
MarkupSafe==3.0.4
mdurl==0.1.2
packaging==26.3
pluggy==1.7.0
Pygments==2.21.0
pyrate-limiter==4.5.1
pytest==9.2.0
PyYAML==6.0.3
requests==2.34.2
rich==15.0.0
sortedcontainers==2.4.0
typing_extensions==4.16.0
urllib3==2.8.0
Werkzeug==3.1.9
EOF
}

st_sum() { st_requirements | sha256sum | cut -d' ' -f1; }

# st_installed: the venv holds the pinned set and its interpreter still runs (a venv breaks
# when the Python it was made from goes away).
st_installed() {
  [ -x "$ST_BIN" ] && [ -f "$ST_VENV/.installed" ] && [ "$(cat "$ST_VENV/.installed")" = "$(st_sum)" ] &&
    "$ST_VENV/bin/python" -c '' 2>/dev/null
}

st_python() {
  local py
  for py in python3.11 python3 python3.12 python3.13; do
    command -v "$py" >/dev/null 2>&1 || continue
    if "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
      command -v "$py"
      return 0
    fi
  done
  return 1
}

ensure_schemathesis() {
  if st_installed; then return 0; fi
  local py t0=$SECONDS log="$STATE/schemathesis-install.log"
  py="$(st_python)" || die "schemathesis needs Python 3.11 or newer (python3.11 or python3 on PATH)"
  log "schemathesis: installing $SCHEMATHESIS_VERSION into $ST_VENV with $py (log: $log)"
  mkdir -p "$STATE"
  rm -rf "$ST_VENV"
  if ! "$py" -m venv "$ST_VENV" >"$log" 2>&1; then
    # Debian's python3 lacks ensurepip until python3-venv is installed.
    rm -rf "$ST_VENV"
    apt_install python3-venv
    "$py" -m venv "$ST_VENV" >"$log" 2>&1 || fail_engine schemathesis "$py -m venv failed" "$log"
  fi
  if ! st_requirements | PIP_DISABLE_PIP_VERSION_CHECK=1 "$ST_VENV/bin/python" -m pip install \
    --quiet --prefer-binary --no-input -r /dev/stdin >>"$log" 2>&1 9>&-; then
    fail_engine schemathesis "pip install schemathesis==$SCHEMATHESIS_VERSION failed" "$log"
  fi
  "$ST_BIN" --version >>"$log" 2>&1 || fail_engine schemathesis "$ST_BIN --version failed after install" "$log"
  st_sum >"$ST_VENV/.installed"
  log "schemathesis: installed in $((SECONDS - t0))s"
}

# Pinned venvs of test tools, each beside Schemathesis's and pinned the same way: reused while
# VENV/.installed holds the checksum of its pins and its module imports.

# venv_installed VENV PINS_FN MODULE
venv_installed() {
  [ -x "$1/bin/python" ] && [ -f "$1/.installed" ] && [ "$(cat "$1/.installed")" = "$("$2" | sha256sum | cut -d' ' -f1)" ] &&
    "$1/bin/python" -c "import $3" 2>/dev/null
}

# ensure_venv NAME VENV PINS_FN MODULE: installs PINS_FN's pins into VENV unless they are there.
ensure_venv() {
  local name="$1" venv="$2" pins="$3" module="$4" py log="$STATE/$1-install.log"
  if venv_installed "$venv" "$pins" "$module"; then return 0; fi
  py="$(st_python)" || die "$name needs Python 3.11 or newer (python3.11 or python3 on PATH)"
  log "$name: installing into $venv with $py (log: $log)"
  mkdir -p "$STATE"
  rm -rf "$venv"
  if ! "$py" -m venv "$venv" >"$log" 2>&1; then
    rm -rf "$venv"
    apt_install python3-venv
    "$py" -m venv "$venv" >"$log" 2>&1 || fail_engine "$name" "$py -m venv failed" "$log"
  fi
  if ! "$pins" | PIP_DISABLE_PIP_VERSION_CHECK=1 "$venv/bin/python" -m pip install \
    --quiet --prefer-binary --no-input -r /dev/stdin >>"$log" 2>&1 9>&-; then
    fail_engine "$name" "pip install of $module failed" "$log"
  fi
  "$pins" | sha256sum | cut -d' ' -f1 >"$venv/.installed"
}

# aiosmtpd: a real SMTP server (with STARTTLS) for the alert e-mail tests (alerts/channels), from
# PyPI.

SMTPD_VENV="$STATE/smtpd"
SMTPD_PY="$SMTPD_VENV/bin/python"

smtpd_requirements() {
  cat <<EOF
aiosmtpd==1.4.6
atpublic==9.0.0
attrs==26.1.0
EOF
}

smtpd_installed() { venv_installed "$SMTPD_VENV" smtpd_requirements aiosmtpd; }

ensure_smtpd() { ensure_venv smtpd "$SMTPD_VENV" smtpd_requirements aiosmtpd; }

# scikit-learn for the small model server (explanation/modelserver/testdata/server.py) of the
# served-model explanation tests.

MODELSERVER_VENV="$STATE/modelserver"
MODELSERVER_PY="$MODELSERVER_VENV/bin/python"

modelserver_requirements() {
  cat <<EOF
joblib==1.6.0
numpy==2.4.6
scikit-learn==1.9.1
scipy==1.17.1
threadpoolctl==3.8.0
EOF
}

modelserver_installed() { venv_installed "$MODELSERVER_VENV" modelserver_requirements sklearn; }

ensure_modelserver() { ensure_venv modelserver "$MODELSERVER_VENV" modelserver_requirements sklearn; }

# The OpenTelemetry Python SDK with its OTLP/HTTP (protobuf) exporter, OpenInference's semantic
# conventions and its instrumentation of the `openai` client, from PyPI, for the OTLP receiver's
# tests (app/otlp_python_test.go): real instrumented applications export GenAI and OpenInference
# spans to Vigil. Pinned like aiosmtpd.

OTEL_VENV="$STATE/otel"
OTEL_PY="$OTEL_VENV/bin/python"

otel_requirements() {
  cat <<EOF
annotated-types==0.8.0
anyio==4.16.0
certifi==2026.10.19.post1
charset-normalizer==3.5.3
googleapis-common-protos==1.76.0
h11==0.16.0
httpcore2==2.16.2
httpx2==2.16.2
idna==3.20
jiter==0.19.0
openai==3.57.0
openinference-instrumentation==0.1.72
openinference-instrumentation-openai==0.1.66
openinference-semantic-conventions==0.1.42
opentelemetry-api==1.45.2
opentelemetry-exporter-http-transport==0.66b2
opentelemetry-exporter-otlp-common==0.66b2
opentelemetry-exporter-otlp-proto-common==1.45.2
opentelemetry-exporter-otlp-proto-http==1.45.2
opentelemetry-instrumentation==0.66b2
opentelemetry-proto==1.45.2
opentelemetry-sdk==1.45.2
opentelemetry-semantic-conventions==0.66b2
packaging==26.4
protobuf==7.36.2
pydantic==2.14.4
pydantic_core==2.50.5
requests==2.34.2
sniffio==1.3.1
truststore==0.10.5
typing-inspection==0.4.5
typing_extensions==4.16.0
urllib3==2.8.0
wrapt==2.5.2
EOF
}

# The Python SDK's test tools (sdk/python: httpx, pandas, pyarrow, pytest, mypy, and hatchling
# to build the package without the network), from PyPI.

SDK_VENV="$STATE/sdk"
SDK_PY="$SDK_VENV/bin/python"

sdk_requirements() {
  cat <<EOF
anyio==4.16.0
ast_serialize==0.13.1
certifi==2026.10.19.post1
h11==0.16.0
hatchling==1.33.0
httpcore==1.0.9
httpx==0.28.1
idna==3.20
iniconfig==2.3.1
librt==0.17.0
mypy==2.4.1
mypy_extensions==1.2.0
numpy==2.4.6
orjson==3.13.0
packaging==26.4
pandas==3.1.1
pandas-stubs==3.1.0.261029
pathspec==1.1.1
pluggy==1.7.0
pyarrow==26.0.1
Pygments==2.21.0
pytest==9.2.0
python-dateutil==4.0.0
tomlkit==0.15.2
trove-classifiers==2026.9.21.13
typing_extensions==4.16.0
tzdata==2026.6
EOF
}

SDK_IMPORTS='httpx, pandas, pyarrow, pytest, mypy, hatchling'
sdk_installed() { venv_installed "$SDK_VENV" sdk_requirements "$SDK_IMPORTS"; }
ensure_sdk() { ensure_venv sdk "$SDK_VENV" sdk_requirements "$SDK_IMPORTS"; }

# openpyxl, the reader most spreadsheet tooling in Python is built on, for the test that opens the
# Excel report as a person's tools would (app/reportread_test.go), from PyPI.

REPORTS_VENV="$STATE/reports"
REPORTS_PY="$REPORTS_VENV/bin/python"

reports_requirements() {
  cat <<EOF
et_xmlfile==2.0.0
openpyxl==3.1.5
EOF
}

reports_installed() { venv_installed "$REPORTS_VENV" reports_requirements openpyxl; }
ensure_reports() { ensure_venv reports "$REPORTS_VENV" reports_requirements openpyxl; }

OTEL_IMPORTS='opentelemetry.sdk, opentelemetry.exporter.otlp.proto.http, openinference.semconv, openai, openinference.instrumentation.openai'
otel_installed() { venv_installed "$OTEL_VENV" otel_requirements "$OTEL_IMPORTS"; }
ensure_otel() { ensure_venv otel "$OTEL_VENV" otel_requirements "$OTEL_IMPORTS"; }

# shap, lime, XGBoost, LightGBM and scikit-learn: the reference libraries of the explanation
# golden files (stats/shap/testdata/generate.py) and of BenchmarkExplain
# (benchmarks/explain_reference.py). Neither a test nor CI needs them (the golden outputs are
# committed), so `up` does not install them: `engines.sh explain` does, pinned like aiosmtpd.

EXPLAIN_VENV="$STATE/explain"
EXPLAIN_PY="$EXPLAIN_VENV/bin/python"

explain_requirements() {
  cat <<EOF
cloudpickle==3.1.3
contourpy==1.3.3
cycler==0.12.1
fonttools==4.68.0
ImageIO==2.38.1
joblib==1.6.0
kiwisolver==1.5.1
lazy-loader==0.6
lightgbm==4.7.0
lime==0.2.0.1
llvmlite==0.50.0
matplotlib==3.11.2
narwhals==2.29.0
networkx==3.6.1
numba==0.68.1
numpy==2.4.6
nvidia-nccl-cu12==2.32.3
packaging==26.4
pandas==3.1.1
pillow==13.0.0
pyparsing==3.3.3
python-dateutil==4.0.0
scikit-image==0.26.0
scikit-learn==1.9.1
scipy==1.17.1
shap==0.49.1
slicer==0.0.8
threadpoolctl==3.8.0
tifffile==2026.3.3
tqdm==4.70.1
typing_extensions==4.16.0
tzdata==2026.6
xgboost==2.1.4
EOF
}

EXPLAIN_IMPORTS='shap, lime.lime_tabular, xgboost, lightgbm, sklearn'
explain_installed() { venv_installed "$EXPLAIN_VENV" explain_requirements "$EXPLAIN_IMPORTS"; }
ensure_explain() { ensure_venv explain "$EXPLAIN_VENV" explain_requirements "$EXPLAIN_IMPORTS"; }

# GitHub's published OpenAPI description (@octokit/openapi, from npm), against which the tests'
# fake code host (app/codehost_forge_test.go) validates every request it receives and every answer
# it gives. Installed with npm into $STATE/octokit-openapi, once per pinned version; not committed.

OCTOKIT_OPENAPI_VERSION=23.0.2
OCTOKIT_DIR="$STATE/octokit-openapi"
OCTOKIT_JSON="$OCTOKIT_DIR/node_modules/@octokit/openapi/generated/api.github.com.json"

octokit_installed() {
  [ -s "$OCTOKIT_JSON" ] && [ "$(cat "$OCTOKIT_DIR/.installed" 2>/dev/null)" = "$OCTOKIT_OPENAPI_VERSION" ]
}

ensure_octokit_openapi() {
  if octokit_installed; then return 0; fi
  local log="$STATE/octokit-openapi-install.log"
  command -v npm >/dev/null 2>&1 || apt_install npm
  log "@octokit/openapi: installing $OCTOKIT_OPENAPI_VERSION into $OCTOKIT_DIR (log: $log)"
  rm -rf "$OCTOKIT_DIR"
  mkdir -p "$OCTOKIT_DIR"
  if ! npm install --prefix "$OCTOKIT_DIR" --no-audit --no-fund --ignore-scripts --omit=dev \
    "@octokit/openapi@$OCTOKIT_OPENAPI_VERSION" >"$log" 2>&1 9>&-; then
    fail_engine octokit-openapi "npm install @octokit/openapi@$OCTOKIT_OPENAPI_VERSION failed" "$log"
  fi
  [ -s "$OCTOKIT_JSON" ] || fail_engine octokit-openapi "npm installed no $OCTOKIT_JSON" "$log"
  echo "$OCTOKIT_OPENAPI_VERSION" >"$OCTOKIT_DIR/.installed"
}

# Gitea, a real forge whose /api/v1 and webhooks follow GitHub's, that app/codehost_gitea_test.go
# connects Vigil to on loopback. Built from its Go module (no download of a release binary: only
# the Go module proxy is reached), pinned, into $STATE/gitea with its options/ and templates/ (no
# frontend assets: the API needs none). v1.26.0 is the newest release whose every dependency the
# module proxy serves. Pure Go: CGO off and no sqlite tags (the test keeps Gitea's tables on the
# tests' PostgreSQL), no bindata (options/ and templates/ are read from disk), only the main
# package, -trimpath, stripped (-s -w): a 107 MB static binary. A cold build (empty GOCACHE, modules
# downloaded) took 6.5 CPU-minutes (the link 5 CPU-seconds, 1.4 GB), 35 minutes of wall time at
# nice 10 on a 2-core machine loaded 8-46 (mostly 25-40) by other helpers' tests (the build with
# go-sqlite3's C took 86 minutes, 31 of them in cc1). `up` starts it in the
# background (gitea_build_background) so that it overlaps the first tests, and the test waits for
# it; `gitea-build` builds it in the foreground (`make test-forge`). The binary is cached in $STATE:
# later runs do not build.

GITEA_VERSION=v1.26.0
# GITEA_BUILD names the version and the recipe in the install marker: a binary built another way
# (the earlier cgo + SQLite one) is built again.
GITEA_BUILD="$GITEA_VERSION pure-go"
GITEA_DIR="$STATE/gitea"
GITEA_BIN="$GITEA_DIR/gitea"
GITEA_STATIC="$GITEA_DIR/static"
GITEA_LOG="$GITEA_DIR/build.log"

gitea_installed() {
  [ -x "$GITEA_BIN" ] && [ -d "$GITEA_STATIC/options" ] && [ "$(cat "$GITEA_DIR/.installed" 2>/dev/null)" = "$GITEA_BUILD" ]
}

# gitea_build: build Gitea unless installed; one build at a time ($GITEA_DIR/.build-lock). Its last
# log line is "gitea: built ..." or "gitea: build failed ...", which the test reads.
gitea_build() {
  mkdir -p "$GITEA_DIR"
  exec 8>"$GITEA_DIR/.build-lock"
  flock 8
  if gitea_installed; then exec 8>&-; return 0; fi
  local t0=$SECONDS dir
  log "gitea: building $GITEA_VERSION into $GITEA_DIR (log: $GITEA_LOG)"
  echo "gitea: building $GITEA_VERSION" >"$GITEA_LOG"
  dir="$(go mod download -json "code.gitea.io/gitea@$GITEA_VERSION" 2>>"$GITEA_LOG" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  if [ ! -d "$dir" ] || ! (cd "$dir" && CGO_ENABLED=0 GOFLAGS='-trimpath -buildvcs=false -mod=readonly' \
    nice -n 19 go build -ldflags='-s -w' -o "$GITEA_BIN.tmp" . >>"$GITEA_LOG" 2>&1 8>&-); then
    echo "gitea: build failed after $((SECONDS - t0))s" >>"$GITEA_LOG"
    fail_engine gitea "go build of code.gitea.io/gitea@$GITEA_VERSION failed" "$GITEA_LOG"
  fi
  rm -rf "$GITEA_STATIC.tmp" "$GITEA_STATIC"
  mkdir -p "$GITEA_STATIC.tmp"
  cp -R "$dir/options" "$dir/templates" "$GITEA_STATIC.tmp/"
  chmod -R u+w "$GITEA_STATIC.tmp"
  mv "$GITEA_STATIC.tmp" "$GITEA_STATIC"
  mv "$GITEA_BIN.tmp" "$GITEA_BIN"
  echo "$GITEA_BUILD" >"$GITEA_DIR/.installed"
  echo "gitea: built in $((SECONDS - t0))s" >>"$GITEA_LOG"
  log "gitea: built in $((SECONDS - t0))s"
  exec 8>&-
}

# gitea_build_background: start gitea_build detached unless installed or building already.
gitea_build_background() {
  gitea_installed && return 0
  pid_alive "$(read_pid "$GITEA_DIR/build.pid")" "gitea-build" && return 0
  mkdir -p "$GITEA_DIR"
  log "gitea: building $GITEA_VERSION in the background (log: $GITEA_LOG)"
  spawn "$GITEA_DIR/build.pid" /dev/null "$0" gitea-build
}

# The Versity S3 Gateway (github.com/versity/versitygw, Apache-2.0): a real S3 server over a posix
# folder, the S3-compatible store the export delivery tests put reports in (testenv.StartS3; MinIO
# is AGPL, so not it). Built from its Go module with the machine's Go into $STATE/versitygw, once
# per pinned version (a few minutes on a cold module cache).

VERSITYGW_VERSION=v1.8.0
VERSITYGW_DIR="$STATE/versitygw"
VERSITYGW_BIN="$VERSITYGW_DIR/bin/versitygw"

versitygw_installed() {
  [ -x "$VERSITYGW_BIN" ] && [ "$(cat "$VERSITYGW_DIR/.installed" 2>/dev/null)" = "$VERSITYGW_VERSION" ]
}

ensure_versitygw() {
  if versitygw_installed; then return 0; fi
  local log="$STATE/versitygw-install.log" t0=$SECONDS
  command -v go >/dev/null || fail_engine versitygw "go is not on PATH" "$log"
  log "versitygw: building $VERSITYGW_VERSION into $VERSITYGW_DIR (log: $log)"
  mkdir -p "$VERSITYGW_DIR/bin"
  if ! (cd "$VERSITYGW_DIR" && GOBIN="$VERSITYGW_DIR/bin" GOFLAGS=-buildvcs=false CGO_ENABLED=0 \
    go install "github.com/versity/versitygw/cmd/versitygw@$VERSITYGW_VERSION") >"$log" 2>&1 9>&-; then
    fail_engine versitygw "go install versitygw@$VERSITYGW_VERSION failed" "$log"
  fi
  "$VERSITYGW_BIN" --version >>"$log" 2>&1 || fail_engine versitygw "$VERSITYGW_BIN --version failed after install" "$log"
  echo "$VERSITYGW_VERSION" >"$VERSITYGW_DIR/.installed"
  log "versitygw: built in $((SECONDS - t0))s"
}

# Debian's OpenSSH server (package openssh-server, installed by ensure_installed), which the SFTP
# delivery tests run unprivileged on a loopback port with a configuration of their own
# (testenv.StartSFTP).

SSHD_BIN=/usr/sbin/sshd

# Debian's Chromium (package chromium, installed by ensure_installed), which the web dashboard's
# browser test drives headless through chromedp (app/dashboardui_test.go).

CHROMIUM_BIN=/usr/bin/chromium

# Helm, built from its Go module (helm.sh/helm/v3), for deploy's tests: `helm lint` and
# `helm template` of deploy/helm/vigil. Installed into $STATE/helm/bin once per pinned version.

HELM_VERSION=v3.22.0
HELM_DIR="$STATE/helm"
HELM_BIN="$HELM_DIR/bin/helm"

helm_installed() {
  [ -x "$HELM_BIN" ] && [ "$(cat "$HELM_DIR/.installed" 2>/dev/null)" = "$HELM_VERSION" ]
}

ensure_helm() {
  if helm_installed; then return 0; fi
  local log="$STATE/helm-install.log"
  log "helm: building $HELM_VERSION from its Go module into $HELM_DIR/bin (log: $log)"
  rm -rf "$HELM_DIR"
  mkdir -p "$HELM_DIR/bin"
  if ! GOBIN="$HELM_DIR/bin" GOFLAGS=-trimpath go install "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" >"$log" 2>&1 9>&-; then
    fail_engine helm "go install helm.sh/helm/v3/cmd/helm@$HELM_VERSION failed" "$log"
  fi
  echo "$HELM_VERSION" >"$HELM_DIR/.installed"
}

# ---------------------------------------------------------------------------------------------
# dispatch per engine

engine_fn() {
  case "$1" in
    postgres) echo pg ;;
    redis) echo redis ;;
    clickhouse) echo ch ;;
    kafka) echo kafka ;;
    *) die "unknown engine '$1' (want one of: ${ENGINES[*]})" ;;
  esac
}

engine_addr() {
  case "$1" in
    postgres) echo "$HOST:$PG_PORT" ;;
    redis) echo "$HOST:$REDIS_PORT" ;;
    clickhouse) echo "$HOST:$CH_TCP_PORT (http $HOST:$CH_HTTP_PORT)" ;;
    kafka) echo "$HOST:$KAFKA_PORT" ;;
  esac
}

engine_log() {
  case "$1" in
    postgres) echo "$PG_LOG" ;;
    redis) echo "$REDIS_LOG" ;;
    clickhouse) echo "$CH_LOG" ;;
    kafka) echo "$KAFKA_LOG" ;;
  esac
}

print_env() {
  cat <<EOF
export VIGIL_TEST_POSTGRES_URL='$(pg_url)'
export VIGIL_TEST_REDIS_URL='redis://$HOST:$REDIS_PORT/0'
export VIGIL_TEST_CLICKHOUSE_URL='clickhouse://$HOST:$CH_TCP_PORT/default'
export VIGIL_TEST_CLICKHOUSE_HTTP='http://$HOST:$CH_HTTP_PORT'
export VIGIL_TEST_KAFKA_BROKERS='$HOST:$KAFKA_PORT'
EOF
  if st_installed; then
    echo "export VIGIL_TEST_SCHEMATHESIS='$ST_BIN'"
  else
    echo "# schemathesis $SCHEMATHESIS_VERSION is not installed in $ST_VENV: run $0 up"
  fi
  if smtpd_installed; then
    echo "export VIGIL_TEST_SMTPD_PYTHON='$SMTPD_PY'"
  else
    echo "# aiosmtpd is not installed in $SMTPD_VENV: run $0 up"
  fi
  if modelserver_installed; then
    echo "export VIGIL_TEST_MODELSERVER_PYTHON='$MODELSERVER_PY'"
  else
    echo "# scikit-learn is not installed in $MODELSERVER_VENV: run $0 up"
  fi
  if otel_installed; then
    echo "export VIGIL_TEST_OTEL_PYTHON='$OTEL_PY'"
  else
    echo "# the OpenTelemetry SDK is not installed in $OTEL_VENV: run $0 up"
  fi
  if versitygw_installed; then
    echo "export VIGIL_TEST_VERSITYGW='$VERSITYGW_BIN'"
  else
    echo "# versitygw $VERSITYGW_VERSION is not installed in $VERSITYGW_DIR: run $0 up"
  fi
  if [ -x "$SSHD_BIN" ]; then
    echo "export VIGIL_TEST_SSHD='$SSHD_BIN'"
  else
    echo "# $SSHD_BIN is missing (Debian package openssh-server): run $0 up"
  fi
  if [ -x "$CHROMIUM_BIN" ]; then
    echo "export VIGIL_TEST_CHROMIUM='$CHROMIUM_BIN'"
  else
    echo "# $CHROMIUM_BIN is missing (Debian package chromium): run $0 up"
  fi
  if sdk_installed; then
    echo "export VIGIL_TEST_SDK_PYTHON='$SDK_PY'"
  else
    echo "# the Python SDK's test tools are not installed in $SDK_VENV: run $0 up"
  fi
  if reports_installed; then
    echo "export VIGIL_TEST_REPORTS_PYTHON='$REPORTS_PY'"
  else
    echo "# openpyxl is not installed in $REPORTS_VENV: run $0 up"
  fi
  if helm_installed; then
    echo "export VIGIL_TEST_HELM='$HELM_BIN'"
  else
    echo "# helm $HELM_VERSION is not installed in $HELM_DIR: run $0 up"
  fi
  if explain_installed; then
    echo "export VIGIL_TEST_EXPLAIN_PYTHON='$EXPLAIN_PY'"
  else
    echo "# shap and lime are not installed in $EXPLAIN_VENV (benchmarks only): run $0 explain"
  fi
  if octokit_installed; then
    echo "export VIGIL_TEST_GITHUB_OPENAPI='$OCTOKIT_JSON'"
  else
    echo "# @octokit/openapi $OCTOKIT_OPENAPI_VERSION is not installed in $OCTOKIT_DIR: run $0 up"
  fi
  # Exported while it builds too: the test waits for the binary, reading the build's log.
  if gitea_installed || pid_alive "$(read_pid "$GITEA_DIR/build.pid")" "gitea-build" || [ -s "$GITEA_LOG" ]; then
    echo "export VIGIL_TEST_GITEA='$GITEA_BIN'"
    echo "export VIGIL_TEST_GITEA_STATIC='$GITEA_STATIC'"
    echo "export VIGIL_TEST_GITEA_BUILD_LOG='$GITEA_LOG'"
  else
    echo "# gitea $GITEA_VERSION is not built in $GITEA_DIR: run $0 up (or $0 gitea-build)"
  fi
}

print_version() {
  local f
  f="$(engine_fn "$1")"
  if "${f}_running"; then
    printf '%-10s up    %-40s %s\n' "$1" "$(engine_addr "$1")" "$("${f}_version" 2>/dev/null || echo '?')"
  else
    printf '%-10s down\n' "$1"
  fi
}

lock() {
  mkdir -p "$STATE"
  exec 9>"$STATE/.lock"
  if ! flock -w 900 9; then die "another engines.sh holds $STATE/.lock"; fi
}

cmd_start_one() {
  local f
  f="$(engine_fn "$1")"
  "${f}_start"
  "${f}_wait"
}

cmd_up() {
  local t0=$SECONDS e
  ensure_installed
  kafka_libs
  # Start every engine first, then wait for each: the slow ones come up in parallel.
  for e in "${ENGINES[@]}"; do "$(engine_fn "$e")_start"; done
  # Gitea builds in the background, overlapping the first tests; its test waits for it.
  gitea_build_background
  # Schemathesis installs (on a cold machine) while the engines boot.
  ensure_schemathesis
  ensure_smtpd
  ensure_modelserver
  ensure_otel
  ensure_sdk
  ensure_reports
  ensure_octokit_openapi
  ensure_helm
  ensure_versitygw
  for e in "${ENGINES[@]}"; do "$(engine_fn "$e")_wait"; done
  print_env >"$STATE/env"
  log "all engines up in $((SECONDS - t0))s; state in $STATE, env in $STATE/env"
  for e in "${ENGINES[@]}"; do print_version "$e" >&2; done
  log "schemathesis $SCHEMATHESIS_VERSION: $ST_BIN"
}

main() {
  local cmd="${1:-up}"
  [ $# -gt 0 ] && shift
  case "$cmd" in
    up)
      lock
      cmd_up
      ;;
    down)
      lock
      local e
      for e in kafka clickhouse redis postgres; do "$(engine_fn "$e")_stop"; done
      ;;
    start | stop | restart | kill)
      [ $# = 1 ] || die "usage: $0 $cmd NAME (NAME: ${ENGINES[*]})"
      local f
      f="$(engine_fn "$1")"
      lock
      case "$cmd" in
        start) ensure_installed; cmd_start_one "$1" ;;
        stop) "${f}_stop" ;;
        restart) "${f}_stop"; cmd_start_one "$1" ;;
        kill) "${f}_kill" ;;
      esac
      ;;
    status)
      local e down=0 f
      for e in "${ENGINES[@]}"; do
        f="$(engine_fn "$e")"
        if "${f}_running"; then
          printf '%-10s up    %s\n' "$e" "$(engine_addr "$e")"
        else
          printf '%-10s down\n' "$e"
          down=1
        fi
      done
      [ "$down" = 0 ] || exit 3
      ;;
    env) print_env ;;
    gitea-build) gitea_build ;;
    explain)
      lock
      ensure_explain
      ;;
    versions)
      local e
      for e in "${ENGINES[@]}"; do print_version "$e"; done
      ;;
    kafka-topics) kafka_topics "$@" ;;
    logs)
      [ $# = 1 ] || die "usage: $0 logs NAME"
      engine_fn "$1" >/dev/null
      engine_log "$1"
      ;;
    -h | --help | help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' ;;
    *) die "unknown command '$cmd' (try: up down start stop restart kill status env explain versions kafka-topics logs gitea-build)" ;;
  esac
}

main "$@"
