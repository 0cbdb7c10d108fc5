package ghaction

import (
	"io"
	"strconv"
	"strings"

	"github.com/sethvargo/go-githubactions"
)

// runner is the Action's side of the GitHub Actions runner, all through
// go-githubactions: inputs and the event context, outputs, the job summary,
// log groups and annotations (it implements prcheck.Log) and the masking of
// secrets. Nothing in the Action writes a workflow command or a file command
// by hand.
type runner struct {
	a *githubactions.Action
}

func newRunner(getenv func(string) string, stdout io.Writer) runner {
	return runner{a: githubactions.New(githubactions.WithGetenv(getenv), githubactions.WithWriter(stdout))}
}

// input is the value of an input as action.yml maps it: INPUT_<NAME>, the
// name upper-cased with '-' as '_', trimmed of surrounding white space.
func (r runner) input(name string) string {
	return r.a.GetInput(strings.ReplaceAll(name, "-", "_"))
}

func (r runner) Group(title string) { r.a.Group(title) }
func (r runner) EndGroup()          { r.a.EndGroup() }
func (r runner) Notice(msg string)  { r.a.Noticef("%s", msg) }
func (r runner) Warning(msg string) { r.a.Warningf("%s", msg) }
func (r runner) Error(msg string)   { r.a.Errorf("%s", msg) }

// errorAt is an error annotation on a line of a file of the repository
// (line 0: the file).
func (r runner) errorAt(file string, line int, msg string) {
	fields := map[string]string{"file": file}
	if line > 0 {
		fields["line"] = strconv.Itoa(line)
	}
	r.a.WithFieldsMap(fields).Errorf("%s", msg)
}

// mask asks the runner to hide secret in every later log line.
func (r runner) mask(secret string) {
	if secret != "" {
		r.a.AddMask(secret)
	}
}
