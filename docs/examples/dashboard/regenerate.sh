#!/usr/bin/env bash
# Regenerates this example dashboard: publishes two result directories of
# `action score` on the bundled corpus into it with `action publish`, as
# the accuracy bot would, then builds its site with `action site`.
#
#   docs/examples/dashboard/regenerate.sh [RELEASE_RESULT COMMIT_RESULT]
#
# RELEASE_RESULT is the run of the simulator release v0.7.15, COMMIT_RESULT
# the run of commit f90a1e3a (no release names it: published with
# --experimental). Without arguments the two snapshots already here are
# published again (after a change to the publish or site code). Run it from
# anywhere inside a checkout of this repository; it rewrites data/, state/,
# the table of README.md and site/.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
case $# in
  2)
    release=$(cd "$1" && pwd)
    commit=$(cd "$2" && pwd)
    ;;
  0)
    release=$work/release
    commit=$work/commit
    cp -r "$here"/data/snapshots/v0.7.15_* "$release"
    cp -r "$here"/data/snapshots/f90a1e3a6787_* "$commit"
    ;;
  *)
    sed -n '2,13p' "$0" >&2
    exit 2
    ;;
esac
cd "$here/../../.."
rm -rf "$here/data" "$here/state"
go run ./cmd/action publish --dashboard "$here" --published-at 2026-12-01T21:00:00Z "$release"
go run ./cmd/action publish --dashboard "$here" --experimental --published-at 2026-12-01T21:30:00Z "$commit"
go run ./cmd/action site --dashboard "$here" --out "$here/site"
