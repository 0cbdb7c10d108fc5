package harness

import (
	"os"
	"strings"
)

// cleanEnvNames are the variables CleanEnv keeps: what go, git and the
// simulator need to build and run (paths, locale, the Go toolchain's
// settings, proxies and certificates for module downloads), nothing else.
var cleanEnvNames = map[string]bool{
	"PATH": true, "HOME": true, "USER": true, "LOGNAME": true,
	"TMPDIR": true, "TMP": true, "TEMP": true, "TZ": true,
	"LANG": true, "LANGUAGE": true, "XDG_CACHE_HOME": true,
	"GOROOT": true, "GOPATH": true, "GOCACHE": true, "GOMODCACHE": true, "GOTMPDIR": true,
	"GOPROXY": true, "GONOPROXY": true, "GOSUMDB": true, "GONOSUMDB": true, "GOPRIVATE": true,
	"GOINSECURE": true, "GOFLAGS": true, "GOTOOLCHAIN": true, "GOENV": true,
	"GOMAXPROCS": true, "GOMEMLIMIT": true, "GOGC": true, "CGO_ENABLED": true,
	"HTTP_PROXY": true, "HTTPS_PROXY": true, "NO_PROXY": true,
	"http_proxy": true, "https_proxy": true, "no_proxy": true,
	"SSL_CERT_FILE": true, "SSL_CERT_DIR": true,
}

// CleanEnv keeps from environ only the variables go and the simulator need
// (cleanEnvNames and LC_*). Everything else is dropped: tokens and secrets
// (GITHUB_TOKEN, INPUT_*, ACTIONS_*_TOKEN, whatever a workflow's env: adds)
// and the runner's file commands (GITHUB_ENV, GITHUB_OUTPUT, GITHUB_PATH,
// GITHUB_STATE, GITHUB_STEP_SUMMARY), which would let the code under test
// set another step's environment or outputs. It is the environment of every
// process that runs code under test: the simulator's build, probe and runs,
// and the pinned harness the Action runs.
func CleanEnv(environ []string) []string {
	out := make([]string, 0, len(cleanEnvNames))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if cleanEnvNames[name] || strings.HasPrefix(name, "LC_") {
			out = append(out, kv)
		}
	}
	return out
}

// simulatorEnv is the environment of the simulator's build, probe and runs.
func simulatorEnv() []string { return CleanEnv(os.Environ()) }
