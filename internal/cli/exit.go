package cli

import (
	"errors"
	"fmt"
)

// The exit-code rule of both commands: 0 on success, 2 on a usage error
// (ErrUsageShown or a *UsageError), the code of an *ExitError, and 1 on any
// other error.

// ErrUsageShown is returned after a command printed its usage because of a
// usage error; main prints nothing more.
var ErrUsageShown = errors.New("usage error")

// UsageError is a mistake in how a command was called (a flag value out of
// range, two flags that exclude each other): exit status 2, its message
// printed like any error.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usagef is a *UsageError with a formatted message (%w wraps as usual).
func Usagef(format string, a ...any) error { return &UsageError{fmt.Errorf(format, a...)} }

// ExitError is an error with an exit status of its own (for example 3: a
// publish refused by the gate).
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// ExitCode is the exit status for err under the rule above.
func ExitCode(err error) int {
	var ee *ExitError
	var ue *UsageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.Code
	case errors.Is(err, ErrUsageShown), errors.As(err, &ue):
		return 2
	}
	return 1
}

// Message is what main prints on stderr for err: "" when the usage was
// already shown, else "error: " and the error.
func Message(err error) string {
	if err == nil || errors.Is(err, ErrUsageShown) {
		return ""
	}
	return "error: " + err.Error()
}
