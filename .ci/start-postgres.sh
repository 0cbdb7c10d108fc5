#!/usr/bin/env bash
# Starts a throwaway PostgreSQL cluster for the tests of `ledger import
# --postgres` (internal/importer, TestPostgres*), listening on a Unix socket
# only (no TCP), in a fresh temporary directory. Called by .ci/run, which
# installs the server from Debian's packages first; usable by hand too:
#
#   eval "$(bash .ci/start-postgres.sh)"     # prints the exports below
#   go test ./internal/importer -run Postgres
#   bash .ci/start-postgres.sh stop "$ACCURACY_PG_DIR"
#
# Prints on stdout: export ACCURACY_TEST_POSTGRES=<connection string> and
# export ACCURACY_PG_DIR=<cluster directory>. Everything else goes to stderr.
# initdb refuses to run as root: as root the cluster belongs to the
# "postgres" system user (created by the Debian package) and is run with
# runuser; otherwise it belongs to the current user.
set -euo pipefail

as_owner() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

# The newest server installed under Debian's layout.
bindir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ]; then
  echo "start-postgres: no PostgreSQL server under /usr/lib/postgresql/*/bin (apt-get install -y postgresql)" >&2
  exit 1
fi

if [ "${1:-}" = stop ]; then
  dir="${2:?usage: start-postgres.sh stop DIR}"
  as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >&2 || true
  rm -rf "$dir"
  exit 0
fi

dir="$(mktemp -d /tmp/accuracy-pg.XXXXXX)"
chmod 755 "$dir"
if [ "$(id -u)" = 0 ]; then
  chown postgres: "$dir"
fi
port=54329
as_owner "$bindir/initdb" -D "$dir/data" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 --no-sync >&2
# listen_addresses='' : Unix socket only, in $dir; fsync off: a throwaway.
as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
  -o "-c listen_addresses='' -k $dir -p $port -c fsync=off -c full_page_writes=off" start >&2
echo "export ACCURACY_TEST_POSTGRES='host=$dir port=$port user=postgres dbname=postgres sslmode=disable'"
echo "export ACCURACY_PG_DIR='$dir'"
