package main

import (
	"runtime/debug"

	"github.com/inference-sim/accuracy-dashboard/internal/harness"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// commit and version are this binary's commit and release, set by a
// release build: go build -ldflags "-X main.commit=<40 hex> -X
// main.version=vX.Y.Z". Without them, the Go toolchain's VCS stamp of a
// `go build` in a clean checkout says the commit (harness.Stamped).
var commit, version string

// selfIdentity is this binary's own identity (harness.Stamped), or nil
// when it states none: the leaderboard commands then find this tool's
// checkout from the working directory.
func selfIdentity() *runresult.Harness {
	info, _ := debug.ReadBuildInfo()
	if h, ok := harness.Stamped(commit, version, info); ok {
		return &h
	}
	return nil
}
