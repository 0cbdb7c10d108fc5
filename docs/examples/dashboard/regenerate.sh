#!/usr/bin/env bash
# Regenerates this example dashboard: publishes result directories of
# `action score` on the bundled corpus into it with `action publish`, as
# the accuracy bot would, then builds its site with `action site`.
#
#   docs/examples/dashboard/regenerate.sh [RELEASE_RESULT COMMIT_RESULT]
#
# RELEASE_RESULT is the run of the simulator release v0.7.15, COMMIT_RESULT
# the run of commit f90a1e3a (no release names it: published with
# --experimental); past releases are added afterwards with `action
# backfill` (docs/BISECT.md). Without arguments every snapshot already here
# is published again, oldest first, with its recorded dates, label and
# backfill mark (after a change to the publish or site code). Run it from
# anywhere inside a checkout of this repository; it rewrites data/, state/,
# the table of README.md and site/.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$here/../../.."
case $# in
  2)
    release=$(cd "$1" && pwd)
    commit=$(cd "$2" && pwd)
    rm -rf "$here/data" "$here/state"
    go run ./cmd/action publish --dashboard "$here" --published-at 2026-12-01T21:00:00Z "$release"
    go run ./cmd/action publish --dashboard "$here" --experimental --published-at 2026-12-01T21:30:00Z "$commit"
    ;;
  0)
    # The index's entries (newest first), one line each: id, published_at,
    # label, backfilled_at ("-" for none). Its top-level keys are the only
    # ones indented six spaces.
    awk -F'"' '
      /^      "id": /            { id = $4 }
      /^      "published_at": /  { at = $4 }
      /^      "backfilled_at": / { back = $4 }
      /^      "label": /         { label = $4 }
      /^    }/                   { print id, at, label, (back == "" ? "-" : back); id = at = label = back = "" }
    ' "$here/data/index.json" > "$work/entries"
    test -s "$work/entries" || { echo "regenerate.sh: no snapshot in $here/data/index.json" >&2; exit 1; }
    while read -r id _ _ _; do
      cp -r "$here/data/snapshots/$id" "$work/$id"
    done < "$work/entries"
    rm -rf "$here/data" "$here/state"
    tac "$work/entries" | while read -r id at label back; do
      flags=(--published-at "$at")
      [ "$label" = release ] || flags+=(--experimental)
      [ "$back" = - ] || flags+=(--backfilled-at "$back")
      go run ./cmd/action publish --dashboard "$here" "${flags[@]}" "$work/$id"
    done
    ;;
  *)
    sed -n '2,15p' "$0" >&2
    exit 2
    ;;
esac
go run ./cmd/action site --dashboard "$here" --out "$here/site"
