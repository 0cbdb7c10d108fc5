package harness

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/simcli"
	"github.com/inference-sim/accuracy-dashboard/internal/textcut"
)

// SimError is a simulator run that gave no result: Reason is one of the
// not-scored reasons (ReasonUnknownHardware, ReasonTimeout, ...), Detail the
// simulator's own message or what happened.
type SimError struct {
	Reason string
	Detail string
}

func (e *SimError) Error() string { return e.Reason + ": " + e.Detail }

// DefaultPointTimeout bounds one simulator run.
const DefaultPointTimeout = 15 * time.Minute

// Exec runs the build with args in its data directory (the simulator's source
// tree, where it finds defaults.yaml and its model and hardware data), in a
// process group of its own, killed whole past timeout (<= 0:
// DefaultPointTimeout) or when ctx is done. stdout is discarded (BLIS's
// stdout is for people; results come from the files args name). A run that
// does not exit 0 returns a *SimError whose Reason classifies the simulator's
// message: unknown GPU, unknown model, model too big for the GPUs, or a
// plain run error; a timeout gives ReasonTimeout.
func (b *Build) Exec(ctx context.Context, args []string, timeout time.Duration) error {
	_, _, err := b.ExecWarnings(ctx, args, timeout)
	return err
}

// ExecWarnings is Exec, and also returns the warnings the simulator wrote
// to stderr, whether the run succeeded or not: deduplicated by cause and
// bounded (warningLog), with how many warning lines past the bound were
// omitted.
func (b *Build) ExecWarnings(ctx context.Context, args []string, timeout time.Duration) (warnings []runresult.Warning, omitted int, err error) {
	var wl warningLog
	err = b.exec(ctx, args, timeout, &wl)
	warnings, omitted = wl.Result()
	return warnings, omitted, err
}

func (b *Build) exec(ctx context.Context, args []string, timeout time.Duration, warnings io.Writer) error {
	if timeout <= 0 {
		timeout = DefaultPointTimeout
	}
	cmd := exec.Command(b.Binary, args...)
	cmd.Dir, cmd.Env = b.DataDir, simulatorEnv()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// Killed with the harness: a harness killed outright (SIGKILL, the
	// OOM killer) cannot kill the group, and the simulator, in a group of
	// its own, would run on to its timeout. The signal is tied to the
	// thread that starts the child, so that goroutine keeps its thread
	// until the child has exited (the thread ends with it).
	dieWithParent(cmd.SysProcAttr)
	stderr := tailBuffer{max: 64 << 10}
	cmd.Stdout = io.Discard
	cmd.Stderr = io.MultiWriter(&stderr, warnings)
	started, done := make(chan error, 1), make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		done <- cmd.Wait()
	}()
	if err := <-started; err != nil {
		return &SimError{ReasonRunError, fmt.Sprintf("start simulator: %v", err)}
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case err := <-done:
		if err == nil {
			return nil
		}
		msg := simulatorMessage(stderr.String())
		switch {
		case strings.Contains(msg, "not found in hardware config"):
			return &SimError{ReasonUnknownHardware, msg}
		case strings.Contains(msg, "could not find config.json"):
			return &SimError{simcli.ReasonUnknownModel, msg}
		case strings.Contains(msg, "exceeds available GPU memory"):
			return &SimError{ReasonDoesNotFit, msg}
		}
		return &SimError{ReasonRunError, fmt.Sprintf("%v: %s", err, msg)}
	case <-timer.C:
		killGroup(cmd)
		<-done
		return &SimError{ReasonTimeout, fmt.Sprintf("no result within %s; the simulator was killed", timeout)}
	case <-ctx.Done():
		killGroup(cmd)
		<-done
		return &SimError{ReasonRunError, fmt.Sprintf("cancelled: %v", ctx.Err())}
	}
}

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

var fatalRe = regexp.MustCompile(`level=(?:fatal|error|panic) msg="((?:[^"\\]|\\.)*)"`)

// simulatorMessage picks the simulator's own error message out of its stderr:
// the last logrus fatal/error message, else the last non-empty line.
func simulatorMessage(stderr string) string {
	if crash := goCrash(stderr); crash != "" {
		return oneLine(crash)
	}
	if m := fatalRe.FindAllStringSubmatch(stderr, -1); len(m) > 0 {
		s := m[len(m)-1][1]
		if u, err := strconv.Unquote(`"` + s + `"`); err == nil {
			s = u
		}
		return oneLine(s)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	for k := len(lines) - 1; k >= 0; k-- {
		if l := strings.TrimSpace(lines[k]); l != "" {
			return oneLine(l)
		}
	}
	return "(no message on stderr)"
}

var (
	crashLineRe = regexp.MustCompile(`(?m)^(?:panic: |fatal error: ).*$`)
	goroutineRe = regexp.MustCompile(`(?m)^goroutine \d+ \[[^\]]*\]:\n(.+)\n\t(\S+)`)
)

// goCrash reports a Go runtime crash in stderr by its first "panic: " or
// "fatal error: " line and the first stack frame after it (the function
// and its file:line, the file shortened to its directory and name), e.g.
// "panic: runtime error: index out of range [3] with length 3 (at
// sim.(*Batch).Step, sim/batch.go:42)"; "" when there is none. The last
// stderr line of a crash is a frame or "exit status 2", which says nothing.
func goCrash(stderr string) string {
	loc := crashLineRe.FindStringIndex(stderr)
	if loc == nil {
		return ""
	}
	msg := strings.TrimSpace(stderr[loc[0]:loc[1]])
	m := goroutineRe.FindStringSubmatch(stderr[loc[1]:])
	if m == nil {
		return msg
	}
	fn := m[1]
	if i := strings.LastIndex(fn, "/"); i >= 0 {
		fn = fn[i+1:]
	}
	if i := strings.LastIndex(fn, "("); i > 0 && strings.HasSuffix(fn, ")") && !strings.HasSuffix(fn, "))") {
		fn = fn[:i] // the arguments
	}
	file := m[2]
	if parts := strings.Split(file, "/"); len(parts) > 2 {
		file = strings.Join(parts[len(parts)-2:], "/")
	}
	return msg + " (at " + fn + ", " + file + ")"
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if p := textcut.Prefix(s, 500); p != s {
		return p + "…"
	}
	return s
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	buf bytes.Buffer
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.buf.Write(p)
	if over := t.buf.Len() - t.max; over > 0 {
		t.buf.Next(over)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return t.buf.String() }
