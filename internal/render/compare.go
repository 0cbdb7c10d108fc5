package render

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/metric"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// PRMarker is the hidden marker that identifies the Action's pull-request
// comment. It is the first line of every comparison Markdown.
const PRMarker = "<!-- accuracy-dashboard:pr -->"

// Comparison is a runresult.Comparison as one page draws it: the model's
// figures (internal/runresult computes them) and what the page adds around
// them. The pull-request comment, `action compare` and the dashboard's
// compare pages all render it with CompareMarkdown.
type Comparison struct {
	runresult.Comparison
	// Title, when set, heads a comparison of two named runs (BaseName and
	// HeadName) instead of a pull request's: no PR marker.
	Title string
	// Alerts are plain-text statements of metrics past the alert threshold.
	Alerts []string
	// Notes are plain-text remarks shown under the table (cache hits, ...).
	Notes []string
	// DetailsURL links the full report (the run's job summary), "" for none.
	DetailsURL string
	// BaseID and HeadID, when set, are the snapshot ids the short names
	// BaseName and HeadName stand for, given in a footnote
	// (SnapshotsComparison).
	BaseID, HeadID string
	// Threshold, in percentage points (≥ 0), is how far a headline MAPE
	// must move for the verdict line to call it better or worse (the
	// Action's alert-threshold, else its fail-threshold); a Δ is bold when
	// it is worse by more. 0: any move of at least runresult.MinDelta.
	Threshold float64
}

// RunsComparison is the view of two named runs' comparison (c.BaseName →
// c.HeadName): what `action compare` prints and the dashboard's compare
// pages hold.
func RunsComparison(c runresult.Comparison) Comparison {
	return Comparison{Comparison: c, Title: fmt.Sprintf("Simulator accuracy: %s → %s", c.BaseName, c.HeadName)}
}

// SnapshotLabel is how a page names a published snapshot to a person: the
// simulator's release tag (or its short commit) and the publication date
// (publishedAt, RFC 3339), e.g. "v0.7.15 · 2026-12-01"; never the
// snapshot id, which is 60 to 250 characters long.
func SnapshotLabel(sim runresult.Simulator, publishedAt string) string {
	name := sim.Tag
	if name == "" {
		name = ident.Short(sim.Commit)
		if name == "" {
			name = "unknown build"
		}
	}
	return name + " · " + dateOf(publishedAt)
}

// SnapshotsComparison is the view of the comparison of two published
// snapshots, as the dashboard's data/compare/ pages hold it: the runs
// named by their labels (SnapshotLabel; "(before)" and "(after)" added when
// the two are the same) in the title and the columns, and their ids in a
// footnote.
func SnapshotsComparison(c runresult.Comparison, baseLabel, baseID, headLabel, headID string) Comparison {
	if baseLabel == headLabel {
		baseLabel, headLabel = baseLabel+" (before)", headLabel+" (after)"
	}
	c.BaseName, c.HeadName = baseLabel, headLabel
	v := RunsComparison(c)
	v.BaseID, v.HeadID = baseID, headID
	return v
}

// MaxOneSided is how many one-sided points a comparison lists per side.
const MaxOneSided = 30

// CompareMarkdown renders a Comparison as the Markdown of the pull-request
// comment and job summary, as a reader scans it: the first line is
// PRMarker, then the verdict line (VerdictLine: better, worse or unchanged
// by c.Threshold), the main table of the headline metrics in the tier the
// verdict reads (at most five columns) and what it is over, the saturated
// notes, the threshold alerts and the label; then where it moved (the model
// × hardware groups whose MAPE moved, the points whose error moved most,
// the points one run scored alone), each shown open when it has at most
// MaxOpenRows rows and collapsed when longer; then, collapsed, every figure
// of both tiers and the secondary metrics; coverage, the warnings, the
// notes and the provenance footer. A Δ is bold only when it is worse (past
// c.Threshold). Untrusted text (point ids, label reasons, not-scored
// reasons, data names, and the commits and digests of the results, which
// may come from an untrusted run) is escaped and its mentions defused.
// Percentages are formatted as in Summary (Pct, SignedPct); differences in
// percentage points keep two decimals, as thresholds compare against them.
// The output depends only on c.
func CompareMarkdown(c Comparison) string {
	var b strings.Builder
	switch {
	case c.Title != "":
		fmt.Fprintf(&b, "### %s\n\n", Cell(c.Title))
	case c.Base != nil:
		b.WriteString(PRMarker + "\n### Simulator accuracy: this pull request vs its base\n\n")
	default:
		b.WriteString(PRMarker + "\n### Simulator accuracy of this pull request\n\n")
	}
	b.WriteString(VerdictLine(c) + "\n\n")
	if c.Base != nil {
		writeMainDelta(&b, c)
	} else {
		writeMainHead(&b, c)
	}
	base, head := c.names()
	writeSaturated(&b, c, base, head)
	for _, a := range c.Alerts {
		fmt.Fprintf(&b, "> [!CAUTION]\n> %s\n\n", Cell(a))
	}
	writeLabel(&b, c)
	writeWhere(&b, c)
	if c.Base != nil {
		writeDeltaTable(&b, c)
	} else {
		writeHeadTable(&b, c)
	}
	writeCoverage(&b, c)
	writeWarningsDiff(&b, c)
	for _, n := range c.Notes {
		fmt.Fprintf(&b, "%s\n\n", Cell(n))
	}
	writeFooter(&b, c)
	writeSnapshotIDs(&b, c)
	return b.String()
}

// writeSnapshotIDs is the footnote naming the snapshots behind the short
// names of a SnapshotsComparison; nothing for other comparisons.
func writeSnapshotIDs(b *strings.Builder, c Comparison) {
	if c.BaseID == "" && c.HeadID == "" {
		return
	}
	base, head := c.names()
	fmt.Fprintf(b, "\n<sub>Snapshots: %s is %s; %s is %s.</sub>\n", base, code(c.BaseID), head, code(c.HeadID))
}

// saturatedIn marks a point id that either run lists saturated: " **saturated**
// (head)", "(base)" or "(both)"; "" otherwise.
func (c Comparison) saturatedIn(id, base, head string) string {
	inHead := c.Head.IsSaturated(id)
	inBase := c.Base != nil && c.Base.IsSaturated(id)
	switch {
	case inHead && inBase:
		return " " + saturatedMark + " (both)"
	case inHead:
		return " " + saturatedMark + " (" + head + ")"
	case inBase:
		return " " + saturatedMark + " (" + base + ")"
	}
	return ""
}

// writeSaturated says, for each run with saturated points, how much of its
// headline MAPE they contribute (comparisonSaturated).
func writeSaturated(b *strings.Builder, c Comparison, base, head string) {
	runs := []struct {
		name string
		s    *runresult.Summary
	}{{head, &c.Head}, {base, c.Base}}
	for _, r := range runs {
		if r.s == nil {
			continue
		}
		if n := comparisonSaturated(*r.s); n != nil {
			fmt.Fprintf(b, "%s, tier %s: **%s** %s\n\n", r.name, n.Tier, n.Lead, n.Rest)
		}
	}
}

// tierNote is a note on a tier, whose lead is set in bold: the tier's name
// as the comparison writes it, the lead and the rest.
type tierNote struct {
	Tier string `json:"tier"`
	Lead string `json:"lead"`
	Rest string `json:"rest"`
}

// comparisonSaturated is a run's note in a comparison on its saturated
// points: saturatedNote over its headline tier (SaturatedNote's words); nil
// when none of that tier's points is saturated. The Markdown and the site's
// comparison both write it.
func comparisonSaturated(s runresult.Summary) *tierNote {
	tier, t, _ := runresult.Headline(s.Tiers)
	lead, rest := saturatedNote(t)
	if lead == "" {
		return nil
	}
	return &tierNote{Tier: tierName(tier), Lead: lead, Rest: rest}
}

// names are the column names of the two runs: Base and Head unless named.
func (c Comparison) names() (base, head string) {
	base, head = "Base", "Head"
	if c.BaseName != "" {
		base = Cell(c.BaseName)
	}
	if c.HeadName != "" {
		head = Cell(c.HeadName)
	}
	return base, head
}

// writeOneSided lists the points scoredBy scored and other did not, at most
// MaxOneSided, with other's reason: open when short (section).
func writeOneSided(b *strings.Builder, points []runresult.OneSided, scoredBy, other string, c Comparison) {
	base, head := c.names()
	if len(points) == 0 {
		return
	}
	section(b, fmt.Sprintf("%s scored by %s only", Count(len(points), "point"), scoredBy), len(points), func() {
		fmt.Fprintf(b, "| Point | Why %s did not score it |\n|---|---|\n", other)
		for i, p := range points {
			if i == MaxOneSided {
				fmt.Fprintf(b, "| … %d more | |\n", len(points)-MaxOneSided)
				break
			}
			fmt.Fprintf(b, "| %s | %s |\n", Cell(p.ID)+c.saturatedIn(p.ID, base, head), Cell(p.Reason))
		}
	})
}

// writeLabel says whether head's figures are a release's. A pull
// request's are not published; a comparison of named runs (a dashboard's
// compare page, which is itself published) says the head is labelled
// experimental instead.
func writeLabel(b *strings.Builder, c Comparison) {
	head := c.Head
	if head.Label == runresult.LabelRelease {
		b.WriteString("Label: **release**.\n\n")
		return
	}
	if c.Title != "" {
		_, name := c.names()
		fmt.Fprintf(b, "> [!WARNING]\n> **Experimental.** %s comes from a build that is not a release: its figures are labelled experimental, not the simulator's released accuracy.", name)
	} else {
		b.WriteString("> [!WARNING]\n> **Experimental.** These figures come from a build that is not a release, so they are not published.")
	}
	if len(head.LabelReasons) > 0 {
		reasons := make([]string, len(head.LabelReasons))
		for i, r := range head.LabelReasons {
			reasons[i] = Cell(r)
		}
		b.WriteString(" Why: " + strings.Join(reasons, "; ") + ".")
	}
	b.WriteString("\n\n")
}

func tierName(t string) string {
	if t == runresult.TierMeasuredResolved {
		return "measured + resolved"
	}
	return "all"
}

// splitRows separates the rows of headline metrics from the others.
func splitRows(rows []runresult.DeltaRow) (headline, secondary []runresult.DeltaRow) {
	for _, r := range rows {
		if d, ok := metric.ByKey(r.Metric); ok && !d.Headline {
			secondary = append(secondary, r)
		} else {
			headline = append(headline, r)
		}
	}
	return headline, secondary
}

// metricShort is how the comparison names metric key.
func metricShort(key string) string {
	if d, ok := metric.ByKey(key); ok {
		return d.Short
	}
	return Cell(key)
}

// writeDeltaTable writes, collapsed, every figure of the comparison: base
// and head MAPE, shape and bias per tier and metric with the change of the
// predictions and the points better, worse and the same, the head's own
// figures over all the points it scored, and the secondary metrics.
func writeDeltaTable(b *strings.Builder, c Comparison) {
	base, head := c.names()
	rows := c.Rows
	same := c.SameTiers()
	if same {
		rows = nil
		for _, r := range c.Rows {
			if r.Tier == runresult.TierAll {
				rows = append(rows, r)
			}
		}
	}
	headline, secondary := splitRows(rows)
	b.WriteString("<details><summary>Every figure: both tiers, shape and bias</summary>\n\n")
	writeDeltaRows(b, c, headline, same)
	if c.Title == "" {
		b.WriteString("\nBase and head figures are over the points both runs scored; Δ = head − base in percentage points (negative: the pull request predicts better). Bias > 0: over-prediction.\n\n")
	} else {
		fmt.Fprintf(b, "\n%s and %s figures are over the points both runs scored; Δ = %s − %s in percentage points (negative: %s predicts better). Bias > 0: over-prediction.\n\n", base, head, head, base, head)
	}
	if same {
		b.WriteString("Every point is measured or resolved, so the two tiers hold the same points: one row per metric.\n\n")
	}
	fmt.Fprintf(b, "%s over all the points it scored: ", head)
	var parts []string
	for _, r := range headline {
		tier := tierName(r.Tier) + " "
		if same {
			tier = ""
		}
		parts = append(parts, fmt.Sprintf("%s%s MAPE %s (n=%d)", tier, metricShort(r.Metric), Pct(r.Head.MAPE), r.Head.N))
	}
	b.WriteString(strings.Join(parts, ", ") + ".\n\n</details>\n\n")
	writeSecondary(b, func() { writeDeltaRows(b, c, secondary, same) }, len(secondary),
		"Each over the common points whose measurement has the metric.")
}

// writeSecondary writes the table of the n rows of the secondary metrics,
// when there are any, collapsed below the headline, then note.
func writeSecondary(b *strings.Builder, table func(), n int, note string) {
	if n == 0 {
		return
	}
	b.WriteString("<details><summary>Secondary metrics (not in the headline)</summary>\n\n")
	table()
	b.WriteString("\n" + note + "\n\n</details>\n\n")
}

// writeDeltaRows writes the comparison table of rows; same: the tiers hold
// the same points, and each row stands for both.
func writeDeltaRows(b *strings.Builder, c Comparison, rows []runresult.DeltaRow, same bool) {
	base, head := c.names()
	fmt.Fprintf(b, "| Tier | Metric | %[1]s MAPE | %[2]s MAPE | Δ MAPE | %[1]s shape | %[2]s shape | Δ shape | %[1]s bias | %[2]s bias | Predictions | Better / worse / same | Common points |\n", base, head)
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		tier := tierName(r.Tier)
		if same {
			tier = "both (the same points)"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d / %d / %d | %d |\n", tier, metricShort(r.Metric),
			Pct(r.BaseMAPE), Pct(r.HeadMAPE), c.delta(r.Delta), Pct(r.BaseShape), Pct(r.HeadShape), c.delta(r.ShapeDelta),
			SignedPct(r.BaseBias), SignedPct(r.HeadBias), Ratio(r.PredictionRatio), r.Better, r.Worse, r.Unchanged, r.Common)
	}
}

// Verdict is a comparison's verdict at a glance, one sentence per headline
// metric over the points both runs scored in the tier its thresholds read
// (c.HeadlineTier): the MAPE of base and head and its change, the median
// change of the predictions themselves, and how many points got better,
// worse or stayed the same, e.g. "**TTFT** MAPE 35.9 % → 38.1 % (+2.2 pp)
// over 46 common points; predictions +6 % (median); 12 points better, 30
// worse, 4 unchanged." A metric without common points says so.
func Verdict(c runresult.Comparison) []string {
	tier := c.HeadlineTier()
	var out []string
	for _, r := range c.Rows {
		d, ok := metric.ByKey(r.Metric)
		if !ok || !d.Headline || r.Tier != tier {
			continue
		}
		name := "**" + d.Short + "**"
		if r.Delta == nil {
			out = append(out, fmt.Sprintf("%s: no point scored by both runs.", name))
			continue
		}
		s := fmt.Sprintf("%s MAPE %s → %s (%s) over %s", name, spacedPct(*r.BaseMAPE), spacedPct(*r.HeadMAPE),
			signed(*r.Delta, 1)+" pp", Count(r.Common, "common point"))
		if tier == runresult.TierAll {
			s += " (tier all: the runs share no measured or resolved point)"
		}
		s += fmt.Sprintf("; predictions %s (median); %s better, %d worse, %d unchanged.", Ratio(r.PredictionRatio), Count(r.Better, "point"), r.Worse, r.Unchanged)
		s += unsaturatedDelta(r)
		out = append(out, s)
	}
	return out
}

// writeHeadTable writes, collapsed, every figure of a run without a
// baseline: both tiers with the median APE, and the secondary metrics.
func writeHeadTable(b *strings.Builder, c Comparison) {
	headline, secondary := splitRows(c.Rows)
	b.WriteString("<details><summary>Every figure: both tiers, median APE</summary>\n\n")
	writeHeadRows(b, headline)
	b.WriteString("\n</details>\n\n")
	writeSecondary(b, func() { writeHeadRows(b, secondary) }, len(secondary),
		"Each over the points whose measurement has the metric.")
}

func writeHeadRows(b *strings.Builder, rows []runresult.DeltaRow) {
	b.WriteString("| Tier | Metric | MAPE | Bias | Median APE | Shape | Points |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %d |\n", tierName(r.Tier), metricShort(r.Metric),
			Pct(r.Head.MAPE), SignedPct(r.Head.Bias), Pct(r.Head.MedianAPE), Pct(r.Head.Shape), r.Head.N)
	}
}

func writeCoverage(b *strings.Builder, c Comparison) {
	base, head := c.names()
	b.WriteString("**Coverage.** " + head + ": " + coverage(c.Head.Coverage))
	if c.Base != nil {
		b.WriteString(" " + base + ": " + coverage(c.Base.Coverage))
		common := 0
		for _, r := range c.Rows {
			if r.Tier == runresult.TierAll {
				common = r.Common
				break
			}
		}
		fmt.Fprintf(b, " Scored by both: %d.", common)
	}
	b.WriteString("\n\n")
}

func coverage(c runresult.Coverage) string {
	s := fmt.Sprintf("%d of %s scored", c.Scored, Count(c.CorpusPoints, "point"))
	if c.NotScored > 0 {
		var parts []string
		for _, r := range notScoredReasons(c.NotScoredByReason) {
			parts = append(parts, fmt.Sprintf("%s × %d", Cell(r.reason), r.n))
		}
		s += fmt.Sprintf(" (%d not scored: %s)", c.NotScored, strings.Join(parts, ", "))
	}
	return s + "."
}

// reasonCount is one not-scored reason and how many points it kept out.
type reasonCount struct {
	reason string
	n      int
}

// notScoredReasons orders the not-scored reasons most common first, then by
// name: the order of the coverage table of Summary.
func notScoredReasons(byReason map[string]int) []reasonCount {
	rs := make([]reasonCount, 0, len(byReason))
	for r, n := range byReason {
		rs = append(rs, reasonCount{r, n})
	}
	slices.SortFunc(rs, func(a, b reasonCount) int {
		if c := cmp.Compare(b.n, a.n); c != 0 {
			return c
		}
		return cmp.Compare(a.reason, b.reason)
	})
	return rs
}

func writeFooter(b *strings.Builder, c Comparison) {
	p := c.Head.Provenance
	h := p.Harness
	harness := commitCode(h.Commit)
	if h.Version != "" {
		harness = Cell(h.Version) + " (" + harness + ")"
	}
	if h.Source == runresult.HarnessAssertion {
		harness += ", commit by assertion"
	}
	base, head := "base", "head"
	if c.Title != "" {
		base, head = c.names()
	}
	sim := head + " " + commitCode(p.Simulator.Commit)
	if c.Base != nil {
		sim += " vs " + base + " " + commitCode(c.Base.Provenance.Simulator.Commit)
	}
	parts := []string{"Harness " + harness, "simulator " + sim, data("ledger", &p.Ledger), data("catalog", p.Catalog), data("registry", p.Registry)}
	if p.Hardware != nil {
		parts = append(parts, data("hardware registry", p.Hardware))
	}
	if c.Base != nil && c.Base.Provenance.Harness.Commit != h.Commit {
		parts = append(parts, base+" scored by harness "+commitCode(c.Base.Provenance.Harness.Commit))
	}
	parts = append(parts, "label "+Cell(c.Head.Label))
	b.WriteString("<sub>" + strings.Join(parts, " · ") + ".")
	if c.DetailsURL != "" {
		b.WriteString(" [Full report](" + urlEscape(c.DetailsURL) + ").")
	}
	b.WriteString("</sub>\n")
}

func data(kind string, d *runresult.DataVersion) string {
	if d == nil {
		return kind + " none"
	}
	s := kind + " " + Cell(d.Name)
	if d.Version != "" {
		s += " " + Cell(d.Version)
	}
	if d.Digest != "" {
		s += " (" + code(shortDigest(d.Digest)) + ")"
	}
	return s
}

func shortDigest(d string) string {
	algo, hex, ok := strings.Cut(d, ":")
	if ok && len(hex) > ident.ShortLen {
		return algo + ":" + ident.Short(hex)
	}
	return d
}

// commitCode shows a commit as code, cut to its first 12 characters.
func commitCode(commit string) string {
	if commit == "" {
		commit = "unknown"
	}
	return code(ident.Short(commit))
}

// codeToken is text that is safe inside a code span: a commit id, a digest.
var codeToken = regexp.MustCompile(`^[\w.:+-]+$`)

// code shows s as inline code when it is a plain token. Anything else goes
// through Cell and stays plain text: backslash escapes do not work inside a
// code span, so a backtick in s would end it and expose what follows.
func code(s string) string {
	if codeToken.MatchString(s) {
		return "`" + s + "`"
	}
	return Cell(s)
}

func urlEscape(u string) string {
	return strings.NewReplacer(" ", "%20", ")", "%29", "(", "%28", "<", "%3C", ">", "%3E", "\n", "", "\r", "").Replace(u)
}

func ptr(f float64) *float64 { return &f }
