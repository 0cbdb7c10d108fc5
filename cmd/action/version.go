package main

// commit and version are this binary's commit and release, set by a
// release build (go build -ldflags "-X main.commit=<40 hex> -X
// main.version=vX.Y.Z"); harness.Self reads them, else Go's VCS stamp.
var commit, version string
