package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sethvargo/go-githubactions"
)

// runner is the Action's side of the GitHub Actions runner, all through
// go-githubactions: inputs and the event context, outputs, the job summary,
// log groups and annotations (it implements prcheck.Log) and the masking of
// secrets. Nothing in cmd/action writes a workflow command or a file command
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

// outputDelimiter is the fixed heredoc delimiter go-githubactions writes
// around every value in $GITHUB_OUTPUT (name<<DELIM, value, DELIM).
const outputDelimiter = "_GitHubActionsFileCommandDelimeter_"

// setOutputs appends the step outputs to $GITHUB_OUTPUT (nothing when it is
// not set). The library's delimiter is fixed, so a value holding it could
// end its value early and inject another output: such a value is refused,
// and every value is checked before any is written.
func (r runner) setOutputs(outputs [][2]string) error {
	if r.a.Getenv("GITHUB_OUTPUT") == "" {
		return nil
	}
	for _, kv := range outputs {
		name, value := kv[0], kv[1]
		if name == "" || strings.ContainsAny(name, "<\r\n=") {
			return fmt.Errorf("output name %q", name)
		}
		if strings.Contains(value, outputDelimiter) {
			return fmt.Errorf("output %s: the value holds the output delimiter %s", name, outputDelimiter)
		}
	}
	return fileCommand(func() {
		for _, kv := range outputs {
			r.a.SetOutput(kv[0], kv[1])
		}
	})
}

// addStepSummary appends markdown and a line break to $GITHUB_STEP_SUMMARY.
func (r runner) addStepSummary(markdown string) error {
	return fileCommand(func() { r.a.AddStepSummary(markdown) })
}

// fileCommand runs go-githubactions file commands, which panic when the
// file cannot be written, and returns that failure as an error.
func fileCommand(f func()) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%v", p)
		}
	}()
	f()
	return nil
}
