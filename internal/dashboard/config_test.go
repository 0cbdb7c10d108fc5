package dashboard

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseConfig(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, src string
		keep      int // -1: unset
		err       string
	}{
		{name: "empty file", src: "", keep: -1},
		{name: "comment only", src: "# nothing set\n", keep: -1},
		{name: "no retention", src: "retention: {}\n", keep: -1},
		{name: "keep 30", src: "retention:\n  keep_experimental: 30\n", keep: 30},
		{name: "keep 0", src: "retention:\n  keep_experimental: 0\n", keep: 0},
		{name: "negative", src: "retention:\n  keep_experimental: -3\n", err: "retention.keep_experimental is -3"},
		{name: "not a number", src: "retention:\n  keep_experimental: thirty\n", err: "line 2: cannot unmarshal !!str `thirty`"},
		{name: "unknown key", src: "retention:\n  keep_release: 3\n", err: "line 2: field keep_release not found"},
		{name: "unknown top key", src: "retain: 3\n", err: "field retain not found"},
		{name: "two documents", src: "retention: {}\n---\nretention: {}\n", err: "more than one YAML document"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := ParseConfig([]byte(c.src))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || !strings.HasPrefix(err.Error(), ConfigPath+": ") {
					t.Fatalf("ParseConfig = %+v, %v; want an error naming %s and %q", cfg, err, ConfigPath, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := -1
			if k := cfg.Retention.KeepExperimental; k != nil {
				got = *k
			}
			if got != c.keep {
				t.Errorf("keep_experimental = %d, want %d", got, c.keep)
			}
		})
	}
}

// Apply keeps every release and unlabelled entry and the newest n
// experimental ones; Add counts what it prunes and keeps its range.
func TestRetentionApply(t *testing.T) {
	t.Parallel()
	entries := []IndexEntry{
		{ID: "e5", Label: "experimental", PublishedAt: "2026-12-05"}, {ID: "r4", Label: "release", PublishedAt: "2026-12-04"},
		{ID: "e3", Label: "experimental", PublishedAt: "2026-12-03"}, {ID: "u2", PublishedAt: "2026-12-02"},
		{ID: "e1", Label: "experimental", PublishedAt: "2026-12-01"}, {ID: "e0", Label: "experimental", PublishedAt: "2026-11-30"},
	}
	ids := func(es []IndexEntry) string {
		var out []string
		for _, e := range es {
			out = append(out, e.ID)
		}
		return strings.Join(out, " ")
	}
	for keep, want := range map[int][2]string{
		0: {"r4 u2", "e5 e3 e1 e0"}, 1: {"e5 r4 u2", "e3 e1 e0"}, 2: {"e5 r4 e3 u2", "e1 e0"}, 4: {"e5 r4 e3 u2 e1 e0", ""},
	} {
		kept, pruned := Retention{KeepExperimental: &keep}.Apply(entries)
		if ids(kept) != want[0] || ids(pruned) != want[1] {
			t.Errorf("keep %d: kept %q, pruned %q; want %q, %q", keep, ids(kept), ids(pruned), want[0], want[1])
		}
	}
	if kept, pruned := (Retention{}).Apply(entries); len(kept) != len(entries) || pruned != nil {
		t.Errorf("unset: kept %d, pruned %d; want every entry kept", len(kept), len(pruned))
	}
	var rec *Pruned
	if rec.Add(nil, 3) != nil {
		t.Error("nothing pruned made a record")
	}
	rec = rec.Add(entries[4:], 1)
	rec = rec.Add(entries[2:3], 1)
	want := &Pruned{Count: 3, KeepExperimental: 1, Oldest: PrunedSnapshot{ID: "e0", PublishedAt: "2026-11-30"}, Newest: PrunedSnapshot{ID: "e3", PublishedAt: "2026-12-03"}}
	if d := cmp.Diff(want, rec); d != "" {
		t.Errorf("record (-want +got):\n%s", d)
	}
}

// FuzzParseConfig: the dashboard's settings file is a maintainer's, read
// by every publish; no input panics, and a parsed retention is never
// negative.
func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{"", "retention:\n  keep_experimental: 30\n", "retention: {keep_experimental: -1}\n", "a: &x [*x]\n", "---\n---\n", "retention:\n  keep_experimental: 1e99\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		c, err := ParseConfig(raw)
		if err == nil && c.Retention.KeepExperimental != nil && *c.Retention.KeepExperimental < 0 {
			t.Errorf("ParseConfig(%q) kept %d", raw, *c.Retention.KeepExperimental)
		}
	})
}
