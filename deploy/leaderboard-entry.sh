#!/bin/sh
# Entry point of the leaderboard server's image (deploy/leaderboard.Containerfile):
# `action leaderboard serve` on the pinned simulator/catalog pair, with the
# results and the declarations file on the data volume. Every path can be
# moved by the environment, so the script is tested outside a container
# (cmd/action TestLeaderboardImageEntryScript). Extra arguments go to serve
# (e.g. --prepare-only when the image is built, to fill the build cache).
set -eu
app=${LEADERBOARD_APP:-/app}
action=${LEADERBOARD_ACTION:-$app/action}
repo=${LEADERBOARD_REPO:-$app/repo}         # holds runs.yaml, its traces, the pin file, a pinned catalog
data=${LEADERBOARD_DATA:-/data}             # the volume: results/, declarations.yaml, workloads.json
models=${LEADERBOARD_USER_MODELS:-/models}  # the volume of user-added model configs
runs=${LEADERBOARD_RUNS:-leaderboard/runs.yaml}
pin=${LEADERBOARD_PIN:-.github/accuracy-harness.yaml}
case "${1:-}" in
--prepare-only) ;;
*)
	token=${LEADERBOARD_TOKEN:-}
	if [ "${#token}" -lt 16 ]; then
		echo "leaderboard-entry: set LEADERBOARD_TOKEN to a secret of at least 16 bytes" >&2
		exit 2
	fi
	mkdir -p "$data/results" "$models"
	;;
esac
cd "$repo"
exec "$action" leaderboard serve \
	--runs "$runs" --results "$data/results" --pin "$pin" \
	--sim-repo "${LEADERBOARD_SIM_REPO:-$app/sim.git}" \
	--cache-dir "${LEADERBOARD_CACHE:-$app/cache}" --user-models "$models" \
	--harness-dir "${LEADERBOARD_HARNESS:-$app/harness}" \
	--addr "${LEADERBOARD_ADDR:-:8080}" "$@"
