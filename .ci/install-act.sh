#!/usr/bin/env bash
# Installs nektos/act, which the Action's end-to-end test (cmd/action
# TestActEndToEnd) uses to run a real workflow. Called by .ci/run.
set -euo pipefail
if ! command -v act >/dev/null 2>&1 && [ ! -x "$(go env GOPATH)/bin/act" ]; then
  GOFLAGS= go install github.com/nektos/act@v0.2.89
fi
