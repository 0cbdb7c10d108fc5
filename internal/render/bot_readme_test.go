package render

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/golden"
	"github.com/inference-sim/accuracy-dashboard/internal/metric"
)

func snapshotRow(sim, date string, ttft, tpot *float64) SnapshotRow {
	id := sim + "_ledger-v1.0.0_harness-v1.1.0"
	return SnapshotRow{PublishedAt: date + "T06:00:00Z", Simulator: sim, Label: "release", Data: "ledger v1.0.0", Harness: "v1.1.0",
		MAPE: map[string]*float64{metric.TTFT.Key: ttft, metric.TPOT.Key: tpot}, Tier: "measured_resolved", Scored: 3, CorpusPoints: 4,
		ID: id, Summary: "data/snapshots/" + id + "/summary.md"}
}

// The README of a dashboard that had a table: the rows newest first, each
// with its label (an experimental row says so; one published before labels
// were recorded says that), a comparison link where there is one, n/a
// where a metric was not scored; the owner's text around the markers kept
// byte for byte.
func TestSnapshotTableGolden(t *testing.T) {
	t.Parallel()
	newer := snapshotRow("0123456789ab", "2026-08-24", ptr(12), ptr(6))
	newer.Label = "experimental"
	newer.Compare = "data/compare/v0.8.0_ledger-v1.0.0_harness-v1.1.0..0123456789ab_ledger-v1.0.0_harness-v1.1.0.md"
	release := snapshotRow("v0.8.0", "2026-08-23", ptr(10), ptr(5))
	release.Compare = "data/compare/v0.7.15_ledger-v1.0.0_harness-v1.1.0..v0.8.0_ledger-v1.0.0_harness-v1.1.0.md"
	old := snapshotRow("v0.7.15", "2026-08-22", ptr(10), nil)
	old.Label = ""
	rows := []SnapshotRow{newer, release, old}
	readme, err := ReplaceTable([]byte("# Dashboard\n\nIntro.\n\n"+TableStart+"\nold\n"+TableEnd+"\n\nFooter.\n"), SnapshotTable(rows, "data/index.json"))
	if err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, filepath.Join("testdata", "dashboard-readme.golden"), readme)

	// A dashboard without a README gets one.
	fresh, err := ReplaceTable(nil, SnapshotTable(rows[:1], "data/index.json"))
	if err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, filepath.Join("testdata", "dashboard-readme-new.golden"), fresh)
}

// The table shows the newest SnapshotTableRows snapshots and counts the rest.
func TestSnapshotTableCountsOlderSnapshots(t *testing.T) {
	t.Parallel()
	var rows []SnapshotRow
	for i := range SnapshotTableRows + 3 {
		rows = append(rows, snapshotRow(fmt.Sprintf("v0.%d.0", 100-i), "2026-08-22", ptr(1), ptr(2)))
	}
	table := SnapshotTable(rows, "data/index.json")
	if n := strings.Count(table, "\n| 2026-08-22 |"); n != SnapshotTableRows {
		t.Errorf("%d rows, want %d", n, SnapshotTableRows)
	}
	if !strings.Contains(table, "v0.81.0") || strings.Contains(table, "v0.80.0") ||
		!strings.HasSuffix(table, "\n\n3 older snapshots are listed in [data/index.json](data/index.json).\n") {
		t.Errorf("table:\n%s", table)
	}
	if strings.Contains(SnapshotTable(rows[:SnapshotTableRows], "data/index.json"), "older snapshots") {
		t.Error("a full table without older snapshots mentions them")
	}
}

// Everything in a row comes from summaries and the dashboard's own files.
func TestSnapshotTableRendersUntrustedTextInert(t *testing.T) {
	t.Parallel()
	r := SnapshotRow{PublishedAt: evilText, Simulator: evilText, Label: evilText, Data: evilText, Harness: evilText, Tier: evilText, ID: evilText,
		MAPE: map[string]*float64{metric.TTFT.Key: ptr(1)}, Summary: "data/snapshots/x/summary.md"}
	table := SnapshotTable([]SnapshotRow{r}, "data/index.json")
	if found := activeIn(table); len(found) > 0 {
		t.Errorf("the README table holds active Markdown: %q\n%s", found, table)
	}
	if n := strings.Count(strings.SplitN(table, "\n", 4)[2], " | "); n != 10 {
		t.Errorf("the row has %d cell separators, want 10 (untrusted text split a cell):\n%s", n, table)
	}
}

func TestReplaceTable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in, want string }{
		{"no markers", "# X\ntext", "# X\ntext\n\n## Accuracy\n\n" + TableStart + "\nT\n" + TableEnd + "\n"},
		{"no markers, final newline", "# X\n", "# X\n\n## Accuracy\n\n" + TableStart + "\nT\n" + TableEnd + "\n"},
		{"markers", "a\n" + TableStart + "\nold\n" + TableEnd + "\nb\n", "a\n" + TableStart + "\nT\n" + TableEnd + "\nb\n"},
	} {
		got, err := ReplaceTable([]byte(tc.in), "T\n")
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: got %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
	for name, in := range map[string]string{
		"repeated start": TableStart + TableStart + TableEnd,
		"end only":       "a\n" + TableEnd,
		"out of order":   TableEnd + "\n" + TableStart + "\n",
	} {
		if _, err := ReplaceTable([]byte(in), "T\n"); err == nil || !strings.Contains(err.Error(), "accuracy-table") {
			t.Errorf("%s: %v, want an error naming the markers", name, err)
		}
	}
}
