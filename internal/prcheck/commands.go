package prcheck

import (
	"fmt"
	"io"
	"strings"
)

// Workflow commands (GitHub Actions log annotations and groups). Values are
// escaped as the runner expects so that untrusted text cannot end a command
// early or start another one.

func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// Group starts a collapsible log group.
func Group(w io.Writer, title string) { fmt.Fprintf(w, "::group::%s\n", escapeData(title)) }

// EndGroup ends the current log group.
func EndGroup(w io.Writer) { fmt.Fprintln(w, "::endgroup::") }

// Notice writes a notice annotation.
func Notice(w io.Writer, msg string) { fmt.Fprintf(w, "::notice::%s\n", escapeData(msg)) }

// Warning writes a warning annotation.
func Warning(w io.Writer, msg string) { fmt.Fprintf(w, "::warning::%s\n", escapeData(msg)) }

// ErrorAnnotation writes an error annotation.
func ErrorAnnotation(w io.Writer, msg string) { fmt.Fprintf(w, "::error::%s\n", escapeData(msg)) }
