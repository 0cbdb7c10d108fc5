#!/usr/bin/env bash
# Writes the files a new dashboard installs for the accuracy nightly, stamped
# with this release, into OUTDIR (the release workflow attaches them to the
# GitHub release):
#
#   accuracy-harness.yaml     the pin: this repository at TAG and the commit
#                             TAG names (checked here, in this checkout)
#   accuracy-nightly.yml      the nightly workflow (reads the pin; names no
#   inferencex-db-ledger.yml  harness version itself), and the reusable
#                             InferenceX ledger workflow it calls
#   action.yml                the step both start with, checking out the
#                             pinned harness (.github/actions/pinned-harness)
#
# Usage: scripts/release-install-files.sh --tag vX.Y.Z --repository OWNER/NAME OUTDIR
# Run from the release's checkout (the tag must be present).
set -euo pipefail

tag="" repo="" out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --tag) tag="$2"; shift 2 ;;
    --repository) repo="$2"; shift 2 ;;
    -*) echo "release-install-files: unknown flag $1" >&2; exit 2 ;;
    *) out="$1"; shift ;;
  esac
done
if [ -z "$tag" ] || [ -z "$repo" ] || [ -z "$out" ]; then
  echo "usage: $0 --tag vX.Y.Z --repository OWNER/NAME OUTDIR" >&2
  exit 2
fi
if ! [[ "$tag" =~ ^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$ ]]; then
  echo "release-install-files: $tag is not a release tag vX.Y.Z" >&2
  exit 1
fi
if ! [[ "$repo" =~ ^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$ ]]; then
  echo "release-install-files: $repo is not owner/name" >&2
  exit 1
fi
commit="$(git rev-parse --verify --quiet "refs/tags/${tag}^{commit}")" || {
  echo "release-install-files: this checkout has no tag $tag" >&2
  exit 1
}
mkdir -p "$out"
cat > "$out/accuracy-harness.yaml" <<PIN
# The harness release the accuracy nightly (.github/workflows/accuracy-nightly.yml)
# scores with: the one place that names it. The accuracy bot moves it with
# each harness release (a pull request).
harness:
  repository: ${repo}
  tag: ${tag}
  commit: ${commit}
# data: the harness release's bundled ledger, catalog and registry (docs/ACTION.md).
PIN
root="$(git rev-parse --show-toplevel)"
cp "$root/.github/workflows/accuracy-nightly.yml" "$root/.github/workflows/inferencex-db-ledger.yml" \
  "$root/.github/actions/pinned-harness/action.yml" "$out/"
echo "$out: accuracy-harness.yaml ($tag, $commit), accuracy-nightly.yml, inferencex-db-ledger.yml, action.yml"
