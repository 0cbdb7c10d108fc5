package harness

import (
	"os"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
)

type standin = harnesstest.Standin

func newStandinRepo(t testing.TB) standin { return harnesstest.StandinRepo(t) }

func harnessCheckout(t testing.TB) (string, string) { return harnesstest.HarnessCheckout(t) }

func run(t testing.TB, dir, name string, args ...string) string {
	return harnesstest.Run(t, dir, name, args...)
}

func TestMain(m *testing.M) {
	code := m.Run()
	harnesstest.Cleanup()
	if cacheDir != "" {
		os.RemoveAll(cacheDir)
	}
	os.Exit(code)
}
