package cli

import (
	"errors"
	"fmt"
)

// The exit-code rule of both commands: 0 on success, 2 on a usage error
// (ErrUsageShown or a *UsageError), the code of an *ExitError, and 1 on any
// other error.

// ErrUsageShown marks a usage error whose message and usage were printed
// already (Program.Run returns the *UsageError marked so); main prints
// nothing more.
var ErrUsageShown = errors.New("usage error")

// UsageError is a mistake in how a command was called (an unknown flag, a
// flag value out of range, two flags that exclude each other, a missing
// argument): exit status 2. It is the one usage error type: Spec.Parse
// returns it, and Program.Run prints it with the command's usage.
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
