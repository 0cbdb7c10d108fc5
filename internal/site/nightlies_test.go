package site

import (
	"fmt"
	"html"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/dashboard/dashboardtest"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

// BenchmarkBuildNightlies builds the site of a dashboard of 10 and of 365
// daily snapshots of 171 points (the bundled corpus's size): the bytes
// allocated per build and the peak heap, which must stay flat in the
// number of snapshots.
func BenchmarkBuildNightlies(b *testing.B) {
	for _, n := range []int{10, 365} {
		b.Run(fmt.Sprintf("snapshots=%d", n), func(b *testing.B) {
			dash := b.TempDir()
			dashboardtest.Nightlies(b, dash, n, 171)
			out := filepath.Join(b.TempDir(), "site")
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				peak, live := peakHeap(func() {
					if _, err := BuildDir(dash, out, slog.New(slog.DiscardHandler)); err != nil {
						b.Fatal(err)
					}
				})
				b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
				b.ReportMetric(float64(live)/(1<<20), "peak-live-MiB")
			}
		})
	}
}

// peakHeap runs fn and returns the most heap its objects held meanwhile
// above what they held before, sampled every millisecond (after a
// collection, so that what the run before left does not count), garbage
// not yet collected included; and the most heap that was live (reachable)
// at the end of a collection meanwhile (/gc/heap/live:bytes), above
// what was live before: what the build keeps, not what it has made and
// not yet freed.
func peakHeap(fn func()) (peak, live uint64) {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}}
	read := func() (uint64, uint64) {
		metrics.Read(sample)
		return sample[0].Value.Uint64(), sample[1].Value.Uint64()
	}
	base, baseLive := read()
	// The sampler's alone until it stops (stopped orders its writes
	// before the reads below).
	var peakObj, peakLive uint64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			h, l := read()
			peakObj, peakLive = max(peakObj, h), max(peakLive, l)
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	fn()
	close(done)
	<-stopped
	if peakObj > base {
		peak = peakObj - base
	}
	if peakLive > baseLive {
		live = peakLive - baseLive
	}
	return peak, live
}

// A year of nightlies: the History shows the last 30 first, the last 90
// and all a click away (radio buttons, no script); every chart of a range
// has one link per snapshot to its page, which exists; at most 8 x labels
// per chart; and the snapshots left out of the site are none.
func TestBuildAYearOfNightlies(t *testing.T) {
	t.Parallel()
	dash := t.TempDir()
	ids := dashboardtest.Nightlies(t, dash, 365, 16)
	out := filepath.Join(t.TempDir(), "site")
	var log testkit.SyncBuffer
	n, err := BuildDir(dash, out, slog.New(slog.NewTextHandler(&log, nil)))
	if err != nil || log.String() != "" {
		t.Fatalf("BuildDir = %d files, %v, logged %q", n, err, log.String())
	}
	raw, err := os.ReadFile(filepath.Join(out, "history.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(raw)
	if strings.Contains(page, "<script>") {
		t.Error("the History has an inline script: its ranges must work without one")
	}
	for _, want := range []string{`<input type="radio" name="range" class="range-input" id="range-30" checked>`,
		`<input type="radio" name="range" class="range-input" id="range-90">`, `<input type="radio" name="range" class="range-input" id="range-all">`,
		`<label for="range-30">Last 30</label>`, "Headline MAPE of the last 30 snapshots", "Headline MAPE of the last 90 snapshots", "Headline MAPE of every snapshot"} {
		if !strings.Contains(page, want) {
			t.Errorf("the History lacks %q", want)
		}
	}
	for _, r := range []struct {
		id   string
		want int
	}{{"history-mape-30", 30}, {"history-mape-90", 90}, {"history-mape", 365}, {"history-shape", 365}} {
		svg := chartSVG(t, page, r.id)
		links := regexp.MustCompile(`<a class="mark[^"]*" href="([^"]+)"`).FindAllStringSubmatch(svg, -1)
		if len(links) != r.want {
			t.Errorf("%s: %d links, want one per snapshot (%d)", r.id, len(links), r.want)
		}
		for _, l := range links {
			if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(html.UnescapeString(l[1])))); err != nil {
				t.Errorf("%s: a mark links to %s: %v", r.id, l[1], err)
				break
			}
		}
		if labels := strings.Count(svg, `text-anchor="start">`) + strings.Count(svg, `text-anchor="end">`) + strings.Count(svg, `text-anchor="middle">`); labels > 8+3+yTicksMax {
			t.Errorf("%s: %d labels", r.id, labels)
		}
	}
	if !strings.Contains(page, ids[0]) || !strings.Contains(page, ids[len(ids)-1]) {
		t.Error("the History's table lacks the newest or the oldest snapshot")
	}
}

// yTicksMax is how many y tick labels a chart has at most (render's 5
// steps and zero, with one more for rounding up).
const yTicksMax = 7

// chartSVG is the <svg> whose title has id+"-title" in page.
func chartSVG(t *testing.T, page, id string) string {
	t.Helper()
	i := strings.Index(page, `aria-labelledby="`+id+`-title `)
	if i < 0 {
		t.Fatalf("no chart %s", id)
	}
	j := strings.Index(page[i:], "</svg>")
	return page[i : i+j]
}
