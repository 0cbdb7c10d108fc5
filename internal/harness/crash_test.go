package harness

import "testing"

// A simulator crash is reported by its panic or fatal error line and the
// first frame, not by its last stderr line.
func TestSimulatorMessageNamesTheCrash(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, stderr, want string }{
		{"panic", "time=1 level=info msg=\"starting\"\npanic: runtime error: index out of range [3] with length 3\n\ngoroutine 1 [running]:\n" +
			"github.com/inference-sim/inference-sim/sim.(*Batch).Step(0xc000010000, 0x3)\n\t/home/u/src/inference-sim/sim/batch.go:42 +0x1d\n" +
			"main.main()\n\t/home/u/src/inference-sim/main.go:10 +0x25\nexit status 2\n",
			"panic: runtime error: index out of range [3] with length 3 (at sim.(*Batch).Step, sim/batch.go:42)"},
		{"fatal error", "fatal error: all goroutines are asleep - deadlock!\n\ngoroutine 1 [chan receive]:\nmain.main()\n\t/src/main.go:7 +0x2d\n",
			"fatal error: all goroutines are asleep - deadlock! (at main.main, src/main.go:7)"},
		{"panic without a trace", "panic: boom\n", "panic: boom"},
		{"logrus fatal", "time=1 level=fatal msg=\"model not found\"\n", "model not found"},
		{"last line", "something\nwent wrong\n", "went wrong"},
	} {
		if got := simulatorMessage(tt.stderr); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
