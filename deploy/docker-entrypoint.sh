#!/bin/sh
# Container start (docs/operations.md). For the server command: DATABASE_URL must be given, and with
# HEARTBEAT_SEVERITY set a loop raises alerts for stale and slow heartbeats as the established image
# does (`alerta heartbeats --alert` every HEARTBEAT_CHECK_INTERVAL seconds). Then the command replaces
# this shell, so the server is the process that gets SIGTERM.
set -eu

app=$(cd "$(dirname "$0")/.." && pwd)

is_true() {
  case $(printf '%s' "${1:-}" | tr '[:upper:]' '[:lower:]') in
    yes | on | true | t | 1 | y) return 0 ;;
    *) return 1 ;;
  esac
}

heartbeat_alerts() {
  server=$1
  interval=${HEARTBEAT_CHECK_INTERVAL:-60}
  # The loop stops once the server is gone (a container's init would reap it anyway; a plain
  # process tree would not).
  while sleep "$interval" && kill -0 "$server" 2>/dev/null; do
    ALERTA_ENDPOINT="http://127.0.0.1:${PORT:-8080}/api" ALERTA_API_KEY="${ADMIN_KEY:-}" \
      node "$app/cli/alerta.js" heartbeats --alert --severity "$HEARTBEAT_SEVERITY" >/dev/null ||
      echo "alertwall: heartbeat alerts: the run failed (next in ${interval}s)" >&2
  done
}

# The server, however it is started (`node --max-old-space-size=400 server/main.ts` too).
case "$*" in
  *server/main.ts) is_server=true ;;
  *) is_server=false ;;
esac

if $is_server; then
  if [ -z "${DATABASE_URL:-}${POSTGRES_URI:-}" ]; then
    echo "alertwall: cannot start: DATABASE_URL is required in the container, e.g. postgres://user:password@db:5432/alertwall" >&2
    exit 2
  fi
  if [ -n "${HEARTBEAT_SEVERITY:-}" ]; then
    if is_true "${AUTH_REQUIRED:-}" && [ -z "${ADMIN_KEY:-}" ]; then
      echo "alertwall: heartbeat alerts are off: with AUTH_REQUIRED they need ADMIN_KEY (and ADMIN_USERS)" >&2
    else
      # $$ is this shell, which becomes the server at `exec` below.
      heartbeat_alerts $$ &
    fi
  fi
fi

exec "$@"
