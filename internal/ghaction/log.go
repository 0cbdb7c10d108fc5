package ghaction

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"sync"
	"unicode"
)

// The runner reads workflow commands from both of a step's streams, stdout
// and stderr, line by line (a line ends at \n or \r): a line that starts,
// after white space, with "::" (::warning::, ::error::, ::add-mask::,
// ::stop-commands::, …), and a line holding "##[" anywhere (the older
// ##[command] form). Text the Action does not control (inputs such as
// pin-file or simulator-path, paths of the checkout, error messages that
// quote them, the output of the pinned harness and of the simulator's
// build) may hold such lines. Everything the Action prints goes through
// logStreams: its own commands (go-githubactions, which escapes their data)
// are written as they are; every other line is neutralised.

// neutralise rewrites every line of s that the runner would read as a
// workflow command so that it reads as text: a leading "::" (after white
// space) becomes "%3A%3A" and every "##[" becomes "##%5B" (the runner's own
// percent-encoding). Line breaks are kept; other lines are unchanged.
func neutralise(s string) string {
	if !strings.Contains(s, "::") && !strings.Contains(s, "##[") {
		return s
	}
	var b strings.Builder
	for len(s) > 0 {
		end := strings.IndexAny(s, "\r\n")
		if end < 0 {
			end = len(s)
		}
		b.WriteString(neutraliseLine(s[:end]))
		if end < len(s) {
			b.WriteByte(s[end])
			end++
		}
		s = s[end:]
	}
	return b.String()
}

func neutraliseLine(line string) string {
	line = strings.ReplaceAll(line, "##[", "##%5B")
	rest := strings.TrimLeftFunc(line, unicode.IsSpace)
	if strings.HasPrefix(rest, "::") {
		lead := len(line) - len(rest)
		line = line[:lead] + "%3A%3A" + rest[2:]
	}
	return line
}

// logStreams are the Action's two streams. Untrusted text is written
// through Stdout and Stderr, neutralised a whole line at a time (a partial
// line waits for its end, so a command cannot be assembled from two
// writes); the runner's own commands through Commands, which first ends a
// pending partial line of Stdout so the command starts its own line. Safe
// for concurrent use (a subprocess's streams are copied by goroutines).
type logStreams struct {
	mu             sync.Mutex
	stdout, stderr *lineNeutraliser
	Stdout, Stderr io.Writer
	Commands       io.Writer
}

func newLogStreams(stdout, stderr io.Writer) *logStreams {
	l := &logStreams{}
	l.stdout = &lineNeutraliser{mu: &l.mu, w: stdout}
	l.stderr = &lineNeutraliser{mu: &l.mu, w: stderr}
	l.Stdout, l.Stderr = l.stdout, l.stderr
	l.Commands = commandWriter{l}
	return l
}

// Flush writes the partial last lines (neutralised), each ended.
func (l *logStreams) Flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stdout.endLine()
	l.stderr.endLine()
}

// commandWriter is logStreams.Commands: it ends a pending partial line of
// Stdout, then writes the runner's command as it is.
type commandWriter struct{ l *logStreams }

func (c commandWriter) Write(p []byte) (int, error) {
	c.l.mu.Lock()
	defer c.l.mu.Unlock()
	c.l.stdout.endLine()
	return c.l.stdout.w.Write(p)
}

// maxPartialLine bounds the text held back waiting for a line's end.
const maxPartialLine = 64 << 10

// lineNeutraliser writes complete lines through neutralise.
type lineNeutraliser struct {
	mu      *sync.Mutex
	w       io.Writer
	partial []byte
}

func (n *lineNeutraliser) Write(p []byte) (int, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.partial = append(n.partial, p...)
	end := bytes.LastIndexAny(n.partial, "\r\n")
	if end < 0 {
		if len(n.partial) > maxPartialLine {
			n.endLine() // ended, so no command straddles the cut
		}
		return len(p), nil
	}
	whole := n.partial[:end+1]
	if _, err := io.WriteString(n.w, neutralise(string(whole))); err != nil {
		return 0, err
	}
	n.partial = append(n.partial[:0], n.partial[end+1:]...)
	return len(p), nil
}

// endLine writes a pending partial line with a line break (n.mu held).
func (n *lineNeutraliser) endLine() {
	if len(n.partial) == 0 {
		return
	}
	io.WriteString(n.w, neutralise(string(n.partial))+"\n")
	n.partial = n.partial[:0]
}

// neutralError is an error whose text, as main prints it on stderr, reads
// as no workflow command; errors.Is and errors.As see the error it wraps.
type neutralError struct{ err error }

func (e neutralError) Error() string { return neutralise(e.err.Error()) }
func (e neutralError) Unwrap() error { return e.err }

// neutralErr wraps err (nil stays nil).
func neutralErr(err error) error {
	if err == nil {
		return nil
	}
	var ne neutralError
	if errors.As(err, &ne) {
		return err
	}
	return neutralError{err}
}
