package runresult

import (
	"cmp"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// MaxPointWarnings is how many distinct warnings (causes, WarningCause) a
// point keeps of what the simulator printed while it ran it; the lines of
// further causes are counted in Point.WarningsOmitted.
const MaxPointWarnings = 10

// Warning is one cause the simulator warned about on stderr while it ran a
// point: the first message of the cause it printed (one line, at most 500
// characters) and how many times it printed that cause.
type Warning struct {
	Message string `json:"message"`
	Count   int    `json:"count"`
}

// Warnings are the simulator's warnings over a run's points: Causes by
// cause, the causes of the most points first (empty when the simulator
// warned about nothing), and PointsCut, the points that printed more
// causes than a point keeps (MaxPointWarnings).
type Warnings struct {
	Causes    []WarningGroup `json:"causes"`
	PointsCut int            `json:"points_cut,omitempty"`
}

// WarningGroup is one cause the simulator warned about over a run: its
// message with every number as <n> (WarningCause), the first message of it
// in points.json order, the points whose run printed it (points.json
// order), their units (sorted) and how many times it was printed over all
// of them.
type WarningGroup struct {
	Cause   string   `json:"cause"`
	Example string   `json:"example"`
	Points  []string `json:"points"`
	Units   []string `json:"units"`
	Count   int      `json:"count"`
}

var numberRe = regexp.MustCompile(`[0-9]+(?:\.[0-9]+)?`)

// WarningCause is a warning's cause: its message with every number,
// integer or decimal, written <n>, so that the messages of one cause at
// other sizes, requests or ticks are one ("model overhead (226.27 GiB)
// exceeds 144 GiB" and "… (225.22 GiB) exceeds 162 GiB" are "model
// overhead (<n> GiB) exceeds <n> GiB").
func WarningCause(msg string) string { return numberRe.ReplaceAllString(msg, "<n>") }

// summarizeWarnings groups the warnings of ps (sorted as SortPoints) by
// cause, the causes printed for the most points first (then by cause), and
// counts the points whose warnings were cut (WarningsOmitted > 0).
func summarizeWarnings(ps []Point) *Warnings {
	w := &Warnings{Causes: []WarningGroup{}}
	byCause := map[string]*WarningGroup{}
	units := map[string]map[string]bool{}
	for _, p := range ps {
		if p.WarningsOmitted > 0 {
			w.PointsCut++
		}
		for _, w := range p.Warnings {
			c := WarningCause(w.Message)
			g := byCause[c]
			if g == nil {
				g = &WarningGroup{Cause: c, Example: w.Message}
				byCause[c], units[c] = g, map[string]bool{}
			}
			if !slices.Contains(g.Points, p.ID) {
				g.Points = append(g.Points, p.ID)
			}
			units[c][p.Unit] = true
			g.Count += w.Count
		}
	}
	for c, g := range byCause {
		g.Units = slices.Sorted(maps.Keys(units[c]))
		w.Causes = append(w.Causes, *g)
	}
	slices.SortFunc(w.Causes, func(a, b WarningGroup) int {
		return cmp.Or(cmp.Compare(len(b.Points), len(a.Points)), strings.Compare(a.Cause, b.Cause))
	})
	return w
}

// WarningsDiff is what the simulator warned about in one run and not in
// the other, by cause: New are head's causes base has not, Gone base's
// that head has not (each group as its run has it). Known is false when
// either summary was written before warnings were recorded (then New and
// Gone are empty: nothing is known to have changed).
type WarningsDiff struct {
	Known     bool
	New, Gone []WarningGroup
}

// DiffWarnings compares the warnings of two summaries by cause.
func DiffWarnings(base, head Summary) WarningsDiff {
	d := WarningsDiff{Known: base.Warnings != nil && head.Warnings != nil}
	if !d.Known {
		return d
	}
	in := func(w *Warnings, cause string) bool {
		return slices.ContainsFunc(w.Causes, func(g WarningGroup) bool { return g.Cause == cause })
	}
	for _, g := range head.Warnings.Causes {
		if !in(base.Warnings, g.Cause) {
			d.New = append(d.New, g)
		}
	}
	for _, g := range base.Warnings.Causes {
		if !in(head.Warnings, g.Cause) {
			d.Gone = append(d.Gone, g)
		}
	}
	return d
}
