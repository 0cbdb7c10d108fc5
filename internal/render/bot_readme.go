package render

import (
	"fmt"
	"slices"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/metric"
)

// The markers that enclose the accuracy table in the dashboard repository's
// README.md; everything outside them is the repository owner's.
const (
	TableStart = "<!-- accuracy-table:start -->"
	TableEnd   = "<!-- accuracy-table:end -->"
)

// SnapshotTableRows is how many snapshots the README table shows; older ones
// are counted under it and listed in the index.
const SnapshotTableRows = 20

// SnapshotRow is one published snapshot in the README table. Every string
// but the paths is untrusted (it comes from summaries and the dashboard's
// own files) and is escaped.
type SnapshotRow struct {
	// PublishedAt is an RFC 3339 time; the table shows its date.
	PublishedAt string
	Simulator   string
	// Label is the snapshot's label ("release" or "experimental"); ""
	// for a snapshot published before the index recorded it, shown as
	// "not recorded".
	Label string
	// Data names the data versions, e.g. "ledger v1.0.0, catalog v1.0.0".
	Data    string
	Harness string
	// MAPE is the headline tier's MAPE by metric key (metric.Def.Key); the
	// table shows the headline metrics, "n/a" where absent.
	MAPE         map[string]*float64
	Tier         string
	Scored       int
	CorpusPoints int
	// ID names the snapshot; Summary is the path of its summary.md.
	ID, Summary string
	// Compare is the path of its comparison with the previous snapshot
	// ("" for none).
	Compare string
}

// SnapshotTable renders the README's accuracy table from rows, newest first:
// at most SnapshotTableRows rows, then a line saying how many older
// snapshots index (a path) lists.
func SnapshotTable(rows []SnapshotRow, index string) string {
	var b strings.Builder
	b.WriteString(TableHead(slices.Concat(TextColumns("Published", "Simulator", "Label", "Data", "Harness"), headlineColumns("%s MAPE"),
		TextColumns("Tier"), []Column{{Name: "Scored", Figures: true}}, TextColumns("Snapshot", "Change"))))
	for i, r := range rows {
		if i == SnapshotTableRows {
			break
		}
		change := ""
		if r.Compare != "" {
			change = "[vs previous](" + r.Compare + ")"
		}
		label := r.Label
		if label == "" {
			label = "not recorded"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |", Cell(dateOf(r.PublishedAt)), Cell(r.Simulator), Cell(label), Cell(r.Data), Cell(r.Harness))
		for _, d := range metric.Headline() {
			fmt.Fprintf(&b, " %s |", Pct(r.MAPE[d.Key]))
		}
		fmt.Fprintf(&b, " %s | %d / %d | [%s](%s) | %s |\n", Cell(r.Tier), r.Scored, r.CorpusPoints, Cell(r.ID), r.Summary, change)
	}
	if len(rows) > SnapshotTableRows {
		fmt.Fprintf(&b, "\n%d older snapshots are listed in [%s](%s).\n", len(rows)-SnapshotTableRows, index, index)
	}
	return b.String()
}

// dateOf returns the date part of an RFC 3339 time.
func dateOf(ts string) string {
	if len(ts) >= 10 {
		return ts[:10]
	}
	return ts
}

// ReplaceTable puts table between TableStart and TableEnd in readme,
// keeping everything else byte for byte. A README without the markers gets
// an "Accuracy" section with them appended; a nil README becomes a new one.
// Markers out of order or repeated are an error.
func ReplaceTable(readme []byte, table string) ([]byte, error) {
	block := TableStart + "\n" + table + TableEnd
	if readme == nil {
		return []byte("# Accuracy dashboard\n\nPublished accuracy of the BLIS simulator, newest first.\n\n" + block + "\n"), nil
	}
	s := string(readme)
	ns, ne := strings.Count(s, TableStart), strings.Count(s, TableEnd)
	switch {
	case ns == 0 && ne == 0:
		if !strings.HasSuffix(s, "\n") && s != "" {
			s += "\n"
		}
		return []byte(s + "\n## Accuracy\n\n" + block + "\n"), nil
	case ns != 1 || ne != 1:
		return nil, fmt.Errorf("want exactly one %s and one %s, found %d and %d", TableStart, TableEnd, ns, ne)
	}
	i, j := strings.Index(s, TableStart), strings.Index(s, TableEnd)
	if j < i {
		return nil, fmt.Errorf("%s comes before %s", TableEnd, TableStart)
	}
	return []byte(s[:i] + block + s[j+len(TableEnd):]), nil
}
