#!/usr/bin/env bash
# Restores the tables `action ledger import --postgres` reads (configs,
# benchmark_results, server_logs, workflow_runs) from a weekly InferenceX
# database dump into a PostgreSQL database, streaming: the dump is
# downloaded, decompressed and restored in one pipe
#
#   curl part00 part01 ... | zstd -d --long=27 | pg_restore -t configs -t ...
#
# so neither the compressed dump (~GBs) nor the uncompressed archive (tens of
# GB) is ever written to disk; only the four tables land in the database.
#
# The dumps are releases of github.com/SemiAnalysisAI/InferenceX-app tagged
# db-dump/YYYY-MM-DD (weekly): `pg_dump --format=custom`, zstd-compressed
# (--long=27), split into assets inferencex-YYYY-MM-DD.dump.zst.partNN, with
# SHA256SUMS. Older db-dump releases are zips of JSON files; they are refused.
#
# Usage:
#   scripts/restore-inferencex-dump.sh --dbname CONN [--tag db-dump/YYYY-MM-DD] [--repo OWNER/NAME]
#   scripts/restore-inferencex-dump.sh --dbname CONN --input FILE.dump.zst    (or - for stdin)
#
#   --dbname CONN  target database (libpq connection string or postgres:// URL);
#                  the four tables are dropped there first if they exist
#   --tag TAG      the release to restore; default: the newest db-dump/YYYY-MM-DD tag
#                  (needs `gh`, authenticated with GH_TOKEN in CI)
#   --repo R       default SemiAnalysisAI/InferenceX-app
#   --input F      a local zstd-compressed custom-format dump instead of a release
#
# Prints one line on stdout: the release tag restored (or the --input path);
# progress and errors go to stderr.
#
# Environment: PG_RESTORE, the pg_restore command (default: pg_restore; may
# be a command with arguments, e.g. "docker exec -i CONTAINER pg_restore").
# The dump is written by pg_dump 18; its custom format needs pg_restore 17 or
# newer (an older one stops with "unsupported version … in file
# header"). The script checks the version first.
#
# pg_restore exits as soon as it has read the requested tables, which are
# near the start of the archive; the writer side of the pipe then gets
# SIGPIPE (exit status 141) or EPIPE ("Broken pipe"). That early close is the
# expected outcome, not a failure; any other failure of the download or of
# zstd, or any pg_restore error, fails the script. Each part that was read
# to its end is checked against SHA256SUMS (a part cut short by the early
# close cannot be, and is reported as such).
set -euo pipefail

repo=SemiAnalysisAI/InferenceX-app
tag=""
input=""
dbname=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dbname) dbname="${2:?--dbname needs a value}"; shift 2 ;;
    --tag) tag="${2:?--tag needs a value}"; shift 2 ;;
    --repo) repo="${2:?--repo needs a value}"; shift 2 ;;
    --input) input="${2:?--input needs a value}"; shift 2 ;;
    -h|--help) sed -n '2,40p' "$0"; exit 0 ;;
    *) echo "restore-inferencex-dump: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
if [ -z "$dbname" ]; then
  echo "restore-inferencex-dump: --dbname is required (see --help)" >&2
  exit 2
fi
if [ -n "$input" ] && [ -n "$tag" ]; then
  echo "restore-inferencex-dump: give --tag or --input, not both" >&2
  exit 2
fi

read -r -a pg_restore_cmd <<<"${PG_RESTORE:-pg_restore}"
tables=(configs benchmark_results server_logs workflow_runs)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The release's dump is made by pg_dump 18; refuse a pg_restore that cannot read it.
if [ -z "$input" ]; then
  version="$("${pg_restore_cmd[@]}" --version | sed -n 's/.* \([0-9][0-9]*\)\.[0-9].*/\1/p' | head -n 1)"
  if [ -z "$version" ] || [ "$version" -lt 17 ]; then
    echo "restore-inferencex-dump: ${pg_restore_cmd[*]} is version '${version:-unknown}'; the InferenceX dump needs pg_restore 17 or newer (set PG_RESTORE)" >&2
    exit 1
  fi
fi

# produce writes the compressed dump to stdout.
if [ -n "$input" ]; then
  produce() { cat -- "$input"; }
  echo "restore-inferencex-dump: restoring ${tables[*]} from $input" >&2
else
  if [ -z "$tag" ]; then
    tag="$(gh release list --repo "$repo" --limit 200 --json tagName --jq '.[].tagName' | grep -E '^db-dump/[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$' | sort | tail -n 1 || true)"
    if [ -z "$tag" ]; then
      echo "restore-inferencex-dump: no db-dump/* release in $repo" >&2
      exit 1
    fi
  fi
  gh api "repos/$repo/releases/tags/$tag" \
    --jq '.assets[] | [.name, .browser_download_url] | @tsv' >"$work/assets"
  grep -E '\.dump\.zst\.part[0-9]+	' "$work/assets" | sort >"$work/parts" || true
  if [ ! -s "$work/parts" ]; then
    echo "restore-inferencex-dump: release $tag of $repo has no *.dump.zst.partNN assets (dumps before the custom format were JSON zips)" >&2
    exit 1
  fi
  sums_url="$(awk -F'\t' '$1 == "SHA256SUMS" {print $2}' "$work/assets")"
  if [ -n "$sums_url" ]; then
    curl -fsSL --retry 3 "$sums_url" >"$work/SHA256SUMS"
  fi
  # Each part is streamed through sha256sum on the side; a part read to its
  # end leaves "<name>.done".
  produce() {
    while IFS=$'\t' read -r name url; do
      curl -fsSL --retry 3 "$url" | tee >(sha256sum | cut -d' ' -f1 >"$work/$name.sha256")
      st=("${PIPESTATUS[@]}")
      wait "$!" # the checksum's process substitution
      if [ "${st[1]}" != 0 ]; then exit "${st[1]}"; fi # tee: 141 on the early close
      if [ "${st[0]}" != 0 ]; then echo "download of $name failed (curl exit ${st[0]})" >&2; exit "${st[0]}"; fi
      touch "$work/$name.done"
    done <"$work/parts"
  }
  echo "restore-inferencex-dump: restoring ${tables[*]} from $repo release $tag ($(wc -l <"$work/parts") parts)" >&2
fi

targs=()
for t in "${tables[@]}"; do targs+=(-t "$t"); done

set +e
produce 2>"$work/produce.err" \
  | zstd -d --long=27 -c 2>"$work/zstd.err" \
  | "${pg_restore_cmd[@]}" --no-owner --no-privileges --clean --if-exists --exit-on-error \
      "${targs[@]}" --dbname="$dbname"
status=("${PIPESTATUS[@]}")
set -e

# A writer stopped by pg_restore's early close: SIGPIPE (141) or EPIPE.
early_close() { # $1 status, $2 stderr file
  [ "$1" = 0 ] || [ "$1" = 141 ] || grep -qi 'broken pipe' "$2"
}
if [ "${status[2]}" != 0 ]; then
  echo "restore-inferencex-dump: pg_restore failed (exit ${status[2]})" >&2
  cat "$work/zstd.err" "$work/produce.err" >&2
  exit 1
fi
if ! early_close "${status[1]}" "$work/zstd.err"; then
  echo "restore-inferencex-dump: zstd failed (exit ${status[1]}): the stream is damaged" >&2
  cat "$work/zstd.err" >&2
  exit 1
fi
if ! early_close "${status[0]}" "$work/produce.err"; then
  echo "restore-inferencex-dump: reading the dump failed (exit ${status[0]})" >&2
  cat "$work/produce.err" >&2
  exit 1
fi
if [ "${status[1]}" != 0 ] || [ "${status[0]}" != 0 ]; then
  echo "restore-inferencex-dump: pg_restore closed the stream early once it had the tables (expected)" >&2
fi

if [ -z "$input" ] && [ -s "$work/SHA256SUMS" ]; then
  while IFS=$'\t' read -r name _; do
    want="$(awk -v n="$name" '$2 == n || $2 == "*" n {print $1}' "$work/SHA256SUMS")"
    if [ ! -e "$work/$name.done" ]; then
      echo "restore-inferencex-dump: $name not read to its end (early close): checksum not checked" >&2
    elif [ "$want" != "$(cat "$work/$name.sha256")" ]; then
      echo "restore-inferencex-dump: $name does not match SHA256SUMS" >&2
      exit 1
    else
      echo "restore-inferencex-dump: $name matches SHA256SUMS" >&2
    fi
  done <"$work/parts"
fi
echo "restore-inferencex-dump: restored ${tables[*]} into the target database" >&2
# The only line on stdout: what was restored (the release tag, or the input).
echo "${tag:-$input}"
