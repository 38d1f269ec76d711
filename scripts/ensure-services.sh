#!/usr/bin/env bash
# Make sure the real services the test suite talks to are installed and running:
#   - PostgreSQL on 127.0.0.1:5432 with a role bingo/bingo (LOGIN, CREATEDB)
#   - Mosquitto on 127.0.0.1:1883
#   - Chromium (/usr/bin/chromium) for the browser tests
#   - poppler-utils (pdftoppm) for the printing tests
#   - espeak-ng for the spoken numbers (scripts/prepare_audio.py; the browser tests)
#   - GStreamer's RTSP server and plugins with Debian's python3-gi, for the test RTSP camera
#     (tests/support/rtsp_camera.py)
#   - the Debian packages named in ENSURE_EXTRA_PACKAGES (the Makefile passes the
#     typefaces the CCTV reader's training run needs)
#
# Idempotent and quiet: prints nothing when everything is already in place;
# otherwise each step it takes logs one line to stderr. There is no systemd on
# these machines, so services are started directly (pg_ctlcluster, mosquitto -d).
# It exports nothing; the Makefile passes the URLs to pytest.
set -euo pipefail

# The defaults are what the test suite expects; the overrides exist only to try
# this script against a scratch cluster/broker.
PG_HOST=127.0.0.1
PG_PORT=${ENSURE_PG_PORT:-5432}
PG_CLUSTER=${ENSURE_PG_CLUSTER:-main}
MQTT_HOST=127.0.0.1
MQTT_PORT=${ENSURE_MQTT_PORT:-1883}
MOSQUITTO_CONF=${ENSURE_MOSQUITTO_CONF:-/etc/mosquitto/mosquitto.conf}
BINGO_URL="postgresql://bingo:bingo@${PG_HOST}:${PG_PORT}/postgres"
WAIT_SECONDS=30

log() { printf 'ensure-services: %s\n' "$*" >&2; }
die() {
  printf 'ensure-services: ERROR: %s\n' "$*" >&2
  exit 1
}

# Root runs everything directly; anyone else needs sudo for installs/starts.
SUDO=()
if [[ ${EUID} -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo -n)
  fi
fi

# True if something accepts TCP connections on host:port (bash /dev/tcp probe).
tcp_open() {
  timeout 2 bash -c "exec 3<>/dev/tcp/$1/$2" >/dev/null 2>&1
}

# ---------------------------------------------------------------- packages --
missing=()

pg_server_installed() {
  compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null &&
    command -v pg_ctlcluster >/dev/null 2>&1
}
if ! pg_server_installed && ! tcp_open "${PG_HOST}" "${PG_PORT}"; then
  missing+=(postgresql)
fi
if ! command -v psql >/dev/null 2>&1 || ! command -v pg_isready >/dev/null 2>&1; then
  missing+=(postgresql-client)
fi
if ! command -v mosquitto >/dev/null 2>&1 && ! tcp_open "${MQTT_HOST}" "${MQTT_PORT}"; then
  missing+=(mosquitto)
fi
if ! command -v mosquitto_sub >/dev/null 2>&1; then
  missing+=(mosquitto-clients)
fi
if [[ ! -x /usr/bin/chromium ]]; then
  missing+=(chromium)
fi
if ! command -v pdftoppm >/dev/null 2>&1; then
  missing+=(poppler-utils)
fi
if ! command -v espeak-ng >/dev/null 2>&1; then
  missing+=(espeak-ng)
fi
for package in python3-gi gir1.2-gst-rtsp-server-1.0 gstreamer1.0-plugins-good gstreamer1.0-plugins-bad \
  ${ENSURE_EXTRA_PACKAGES:-}; do
  if ! dpkg-query -W -f='${Status}' "${package}" 2>/dev/null | grep -q 'ok installed'; then
    missing+=("${package}")
  fi
done

if ((${#missing[@]})); then
  log "installing ${missing[*]} with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  "${SUDO[@]}" apt-get update -qq >/dev/null ||
    die "apt-get update failed"
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    --no-install-recommends -o Dpkg::Options::=--force-confdef \
    -o Dpkg::Options::=--force-confold "${missing[@]}" >/dev/null ||
    die "apt-get install ${missing[*]} failed"
fi

# -------------------------------------------------------------- postgresql --
pg_ready() {
  pg_isready -q -h "${PG_HOST}" -p "${PG_PORT}" >/dev/null 2>&1
}

# Newest installed cluster version, e.g. "15" ('' if none).
pg_cluster_version() {
  local d
  d=$(compgen -G "/etc/postgresql/*/${PG_CLUSTER}" | sort -V | tail -n 1) || true
  [[ -n ${d} ]] || return 0
  d=${d%/"${PG_CLUSTER}"}
  printf '%s\n' "${d##*/}"
}

if ! pg_ready; then
  ver=$(pg_cluster_version)
  if [[ -z ${ver} ]]; then
    # The package normally creates a cluster on install; create one if it did not.
    ver=$(compgen -G '/usr/lib/postgresql/*/bin/postgres' | sort -V | tail -n 1 |
      sed -E 's#^/usr/lib/postgresql/([^/]+)/.*#\1#') || true
    [[ -n ${ver} ]] || die "no PostgreSQL server found under /usr/lib/postgresql"
    log "creating PostgreSQL ${ver} cluster '${PG_CLUSTER}' on port ${PG_PORT}"
    "${SUDO[@]}" pg_createcluster --port "${PG_PORT}" "${ver}" "${PG_CLUSTER}" >/dev/null ||
      die "pg_createcluster ${ver} ${PG_CLUSTER} failed"
  fi
  log "starting PostgreSQL ${ver}/${PG_CLUSTER}"
  # A cluster that is already running (e.g. only on the socket) makes start fail;
  # the readiness wait below is what decides.
  "${SUDO[@]}" pg_ctlcluster --skip-systemctl-redirect "${ver}" "${PG_CLUSTER}" start >/dev/null 2>&1 ||
    log "pg_ctlcluster start returned non-zero; waiting for the server anyway"
  for ((i = 0; i < WAIT_SECONDS; i++)); do
    pg_ready && break
    sleep 1
  done
  if ! pg_ready; then
    logfile=/var/log/postgresql/postgresql-${ver}-${PG_CLUSTER}.log
    [[ -r ${logfile} ]] && tail -n 20 "${logfile}" >&2
    die "PostgreSQL is not accepting connections on ${PG_HOST}:${PG_PORT} after ${WAIT_SECONDS}s (log: ${logfile})"
  fi
fi

# Run SQL as a PostgreSQL superuser: as the postgres OS user over the socket
# (Debian's default peer auth), else as postgres over TCP.
PG_ADMIN_MODE=""
pg_admin() {
  if [[ -z ${PG_ADMIN_MODE} ]]; then
    if (cd / && runuser -u postgres -- psql -X -qAt -p "${PG_PORT}" -c 'select 1') \
      >/dev/null 2>&1; then
      PG_ADMIN_MODE=runuser
    elif (cd / && "${SUDO[@]}" su postgres -s /bin/sh -c "psql -X -qAt -p ${PG_PORT} -c 'select 1'") \
      >/dev/null 2>&1; then
      PG_ADMIN_MODE=su
    elif psql -X -qAt -h "${PG_HOST}" -p "${PG_PORT}" -U postgres -d postgres \
      -c 'select 1' >/dev/null 2>&1; then
      PG_ADMIN_MODE=tcp
    else
      die "cannot connect to PostgreSQL as superuser (tried runuser/su postgres and psql -h ${PG_HOST} -U postgres)"
    fi
  fi
  case ${PG_ADMIN_MODE} in
  runuser)
    (cd / && runuser -u postgres -- psql -X -qAt -v ON_ERROR_STOP=1 -p "${PG_PORT}" -d postgres "$@")
    ;;
  su)
    local q
    q=$(printf '%q ' "$@")
    (cd / && "${SUDO[@]}" su postgres -s /bin/bash -c "psql -X -qAt -v ON_ERROR_STOP=1 -p ${PG_PORT} -d postgres ${q}")
    ;;
  tcp)
    psql -X -qAt -v ON_ERROR_STOP=1 -h "${PG_HOST}" -p "${PG_PORT}" -U postgres -d postgres "$@"
    ;;
  esac
}

bingo_can_connect() {
  PGCONNECT_TIMEOUT=5 psql -X -qAt "${BINGO_URL}" -c 'select 1' >/dev/null 2>&1
}

# Ensure the role exists with LOGIN, CREATEDB and a password set.
role_state=$(pg_admin -c "select rolcanlogin and rolcreatedb and rolpassword is not null
                            from pg_authid where rolname = 'bingo'") ||
  die "could not query pg_authid"
set_password_sql="set password_encryption = 'scram-sha-256';
                  alter role bingo with login createdb password 'bingo';"
if [[ -z ${role_state} ]]; then
  log "creating PostgreSQL role bingo (LOGIN CREATEDB)"
  pg_admin -c "set password_encryption = 'scram-sha-256';
               create role bingo with login createdb password 'bingo';" >/dev/null ||
    die "could not create role bingo"
elif [[ ${role_state} != t ]]; then
  log "updating PostgreSQL role bingo (LOGIN CREATEDB, password)"
  pg_admin -c "${set_password_sql}" >/dev/null || die "could not alter role bingo"
fi

if ! bingo_can_connect; then
  # Maybe the password differs or is stored as md5: reset it as SCRAM.
  log "resetting password of PostgreSQL role bingo (scram-sha-256)"
  pg_admin -c "${set_password_sql}" >/dev/null || die "could not alter role bingo"
fi

if ! bingo_can_connect; then
  # pg_hba.conf does not let bingo in over 127.0.0.1: add a rule before the others
  # (first match wins), then reload.
  hba_file=$(pg_admin -c 'show hba_file') || die "could not find pg_hba.conf"
  hba_line="host all bingo 127.0.0.1/32 scram-sha-256"
  if ! grep -qxF "${hba_line}" "${hba_file}"; then
    log "adding '${hba_line}' to ${hba_file}"
    tmp=$(mktemp)
    awk -v line="${hba_line}" '
      !done && $0 !~ /^[[:space:]]*(#|$)/ { print line; done = 1 }
      { print }
      END { if (!done) print line }
    ' "${hba_file}" >"${tmp}"
    "${SUDO[@]}" cp "${tmp}" "${hba_file}"
    rm -f "${tmp}"
  fi
  log "reloading PostgreSQL configuration"
  pg_admin -c 'select pg_reload_conf()' >/dev/null || die "pg_reload_conf() failed"
  for ((i = 0; i < 5; i++)); do
    bingo_can_connect && break
    sleep 1
  done
  bingo_can_connect ||
    die "cannot connect as ${BINGO_URL} even after fixing role and pg_hba.conf ($(psql -X -qAt "${BINGO_URL}" -c 'select 1' 2>&1 | head -n 1))"
fi

# --------------------------------------------------------------- mosquitto --
if ! tcp_open "${MQTT_HOST}" "${MQTT_PORT}"; then
  log "starting Mosquitto (mosquitto -d -c ${MOSQUITTO_CONF})"
  # Without systemd/tmpfiles nothing creates the pid directory on a fresh machine.
  if id mosquitto >/dev/null 2>&1; then
    "${SUDO[@]}" install -d -o mosquitto -g mosquitto /run/mosquitto /var/log/mosquitto \
      /var/lib/mosquitto >/dev/null 2>&1 || true
  fi
  "${SUDO[@]}" mosquitto -d -c "${MOSQUITTO_CONF}" ||
    die "mosquitto -d -c ${MOSQUITTO_CONF} failed (see /var/log/mosquitto/mosquitto.log)"
  for ((i = 0; i < WAIT_SECONDS; i++)); do
    tcp_open "${MQTT_HOST}" "${MQTT_PORT}" && break
    sleep 1
  done
  tcp_open "${MQTT_HOST}" "${MQTT_PORT}" ||
    die "Mosquitto is not listening on ${MQTT_HOST}:${MQTT_PORT} after ${WAIT_SECONDS}s (see /var/log/mosquitto/mosquitto.log)"
  # Make sure it speaks MQTT, not just TCP.
  mosquitto_sub -h "${MQTT_HOST}" -p "${MQTT_PORT}" -t '$SYS/broker/version' -C 1 -W 5 \
    >/dev/null 2>&1 ||
    die "Mosquitto on ${MQTT_HOST}:${MQTT_PORT} does not answer an MQTT subscribe"
fi
