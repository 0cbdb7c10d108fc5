package lbrun

import (
	"os"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	harnesstest.Cleanup()
	os.Exit(code)
}
