#!/usr/bin/env bash
# Installs nektos/act, which the Action's end-to-end test (cmd/action
# TestActEndToEnd) and the Pages workflow's test (TestPagesWorkflowUnderAct)
# use to run real workflows, and rhysd/actionlint, which lints every
# workflow (TestWorkflowsPassActionlint). Called by .ci/run.
set -euo pipefail
if ! command -v act >/dev/null 2>&1 && [ ! -x "$(go env GOPATH)/bin/act" ]; then
  GOFLAGS= go install github.com/nektos/act@v0.2.89
fi
if ! command -v actionlint >/dev/null 2>&1 && [ ! -x "$(go env GOPATH)/bin/actionlint" ]; then
  GOFLAGS= go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12
fi
