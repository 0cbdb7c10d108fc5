package harness

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// maxWarningLineBytes bounds one stderr line the warning log reads; the
// rest of a longer line is dropped (a kept message is cut to 500
// characters anyway, oneLine).
const maxWarningLineBytes = 8 << 10

// warningRe matches a warning or error line of the simulator's logger
// (logrus, as BLIS writes to a stderr that is not a terminal: `time="…"
// level=warning msg="…"`, the message quoted unless it is one plain word),
// or as logrus writes to a terminal (`WARN[0000] …`). The closing quote
// is optional: a line longer than maxWarningLineBytes is read cut.
var warningRe = regexp.MustCompile(`(?:\blevel=(?:warning|error) msg=(?:"((?:[^"\\]|\\.)*)"?|(\S+))|^(?:WARN|ERRO)\[[^\]]*\] +(.+))`)

// warningLog reads the simulator's stderr, a line at a time, as the
// warnings of one point: each warning or error line of its logger (BLIS
// writes every diagnostic through logrus; the fatal message that ends a
// failed run is the point's detail, not a warning), one line each
// (oneLine: white space collapsed, at most 500 characters; each run of
// bytes that are not UTF-8 one U+FFFD, as JSON would write it), deduplicated
// by cause (runresult.WarningCause: the first message of a cause is kept with
// how many times the cause was printed), at most
// runresult.MaxPointWarnings causes; the lines of further causes are counted
// as omitted. Other lines (a panic's stack, plain output) are not
// warnings. It implements io.Writer; Result ends the last line.
type warningLog struct {
	line     []byte
	warnings []runresult.Warning
	index    map[string]int
	omitted  int
}

func (w *warningLog) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		end := bytes.IndexByte(p, '\n')
		chunk := p
		if end >= 0 {
			chunk = p[:end]
		}
		if room := maxWarningLineBytes - len(w.line); room > 0 {
			w.line = append(w.line, chunk[:min(len(chunk), room)]...)
		}
		if end < 0 {
			break
		}
		w.endLine()
		p = p[end+1:]
	}
	return n, nil
}

func (w *warningLog) endLine() {
	m := warningRe.FindSubmatch(w.line)
	w.line = w.line[:0]
	if m == nil {
		return
	}
	var msg string
	switch {
	case m[2] != nil: // one plain word, not quoted
		msg = string(m[2])
	case m[3] != nil: // a terminal's format
		msg = string(m[3])
	default:
		msg = string(m[1])
		if u, err := strconv.Unquote(`"` + msg + `"`); err == nil {
			msg = u
		}
	}
	// points.json is JSON, whose encoding replaces each invalid byte: two
	// messages differing there are one cause once written.
	msg = oneLine(strings.ToValidUTF8(msg, "\uFFFD"))
	if msg == "" {
		return
	}
	cause := runresult.WarningCause(msg)
	if i, ok := w.index[cause]; ok {
		w.warnings[i].Count++
		return
	}
	if len(w.warnings) >= runresult.MaxPointWarnings {
		w.omitted++
		return
	}
	if w.index == nil {
		w.index = map[string]int{}
	}
	w.index[cause] = len(w.warnings)
	w.warnings = append(w.warnings, runresult.Warning{Message: msg, Count: 1})
}

// Result ends the last line and returns the warnings kept, in the order
// their causes were first printed (nil for none), and how many warning
// lines were omitted past the bound.
func (w *warningLog) Result() ([]runresult.Warning, int) {
	if len(w.line) > 0 {
		w.endLine()
	}
	return w.warnings, w.omitted
}
