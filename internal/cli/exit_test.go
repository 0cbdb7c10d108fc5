package cli

import (
	"errors"
	"fmt"
	"testing"
)

func TestExitCode(t *testing.T) {
	t.Parallel()
	refused := &ExitError{Code: 3, Err: errors.New("refused")}
	for _, tt := range []struct {
		name string
		err  error
		code int
		msg  string
	}{
		{"ok", nil, 0, ""},
		{"error", errors.New("boom"), 1, "error: boom"},
		{"usage shown", ErrUsageShown, 2, ""},
		{"usage shown, wrapped", fmt.Errorf("score: %w", ErrUsageShown), 2, ""},
		{"usage error", Usagef("--jobs %d: must be at least 1", -1), 2, "error: --jobs -1: must be at least 1"},
		{"usage error, wrapped", fmt.Errorf("score: %w", Usagef("--shard: bad")), 2, "error: score: --shard: bad"},
		{"exit error", refused, 3, "error: refused"},
		{"exit error, wrapped", fmt.Errorf("publish: %w", refused), 3, "error: publish: refused"},
	} {
		if got := ExitCode(tt.err); got != tt.code {
			t.Errorf("%s: ExitCode = %d, want %d", tt.name, got, tt.code)
		}
		if got := Message(tt.err); got != tt.msg {
			t.Errorf("%s: Message = %q, want %q", tt.name, got, tt.msg)
		}
	}
}
