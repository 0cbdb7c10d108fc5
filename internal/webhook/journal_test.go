package webhook

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

// An accepted delivery is in the journal from before its 202 until its
// work ends, and only then; a refused or ignored one never is.
func TestJournalKeepsADeliveryUntilItsWorkEnds(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "journal")
	h := newHarness(t, func(o *Options) { o.JournalDir = dir })
	if _, err := h.srv.Recover(); err != nil { // makes the directory
		t.Fatal(err)
	}
	h.rec.allow = true
	release := h.holdBumps(t)
	rel := example(t, "release", "published", nil)
	if w := h.post("release", "rel-1", rel); w.Code != http.StatusAccepted {
		t.Fatal(w.Code)
	}
	if w := h.post("release", "rel-bad", append(rel, ' ')); w.Code != http.StatusAccepted {
		t.Fatal(w.Code) // another body, another delivery: kept too
	}
	h.srv.ServeHTTP(httptest.NewRecorder(), request("release", "unsigned", rel, "sha256=00"))
	if got := strings.Join(testkit.Paths(t, dir), " "); got != "delivery-rel-1.json delivery-rel-bad.json" {
		t.Fatalf("the journal holds %q while the bumps run, want the two accepted deliveries", got)
	}
	b, err := os.ReadFile(filepath.Join(dir, "delivery-rel-1.json"))
	if err != nil {
		t.Fatal(err)
	}
	var e journalEntry
	if err := json.Unmarshal(b, &e); err != nil || e.ID != "rel-1" || e.Event != "release" || string(e.Body) != string(rel) {
		t.Fatalf("entry %s: %+v (%v), want the delivery's id, event and exact body", b, e, err)
	}
	release()
	for range 2 {
		if r := h.wait(t); r.err != nil {
			t.Fatal(r.err)
		}
	}
	if got := testkit.Paths(t, dir); len(got) != 0 {
		t.Errorf("the journal holds %q once the work ended, want nothing", got)
	}
}

// A delivery the journal cannot keep is refused (503), not acknowledged:
// GitHub records it as failed, and bot redeliver asks for it again.
func TestDeliveryTheJournalCannotKeepIsRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(o *Options) { o.JournalDir = filepath.Join(t.TempDir(), "missing", "journal") })
	h.rec.allow = true
	w := h.post("release", "rel-1", example(t, "release", "published", nil))
	if w.Code != http.StatusServiceUnavailable || !strings.Contains(w.Body.String(), "cannot record the delivery") {
		t.Fatalf("answer %d %q, want 503 cannot record the delivery", w.Code, w.Body)
	}
	h.noneHandled(t, "a delivery the journal could not keep")
}

// Recover queues again what a killed process left: a delivery recorded by
// one server is run by the next on the same journal, with its body; an
// entry recovered MaxRecoveries times, one that does not decode and the
// temporary file of an interrupted write are reported, not run.
func TestRecoverQueuesWhatAKilledProcessLeft(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "journal")
	first := newHarness(t, func(o *Options) { o.JournalDir = dir })
	if _, err := first.srv.Recover(); err != nil {
		t.Fatal(err)
	}
	first.rec.allow = true
	first.holdBumps(t) // never released: the process "dies" with it running
	rel := example(t, "release", "published", nil)
	if w := first.post("release", "left", rel); w.Code != http.StatusAccepted {
		t.Fatal(w.Code)
	}
	again := journalEntry{ID: "crashes", Event: "release", Body: rel, AcceptedAt: time.Unix(0, 0), Recovered: MaxRecoveries}
	b, _ := json.Marshal(again)
	testkit.WriteFile(t, filepath.Join(dir, "delivery-crashes.json"), string(b))
	testkit.WriteFile(t, filepath.Join(dir, "delivery-torn.json"), `{"id": "torn", "ev`)
	testkit.WriteFile(t, filepath.Join(dir, ".delivery-x.json.tmp-12345"), `{"id":`)

	left, err := readJournalEntry(filepath.Join(dir, "delivery-left.json"))
	if err != nil {
		t.Fatal(err)
	}

	next := newHarness(t, func(o *Options) { o.JournalDir = dir })
	next.rec.allow = true
	release := next.holdBumps(t)
	n, err := next.srv.Recover()
	if err != nil || n != 1 {
		t.Fatalf("Recover: %d, %v; want 1 delivery queued", n, err)
	}
	// While it runs again, its entry counts the recovery and keeps the
	// time it was first accepted.
	if e, err := readJournalEntry(filepath.Join(dir, "delivery-left.json")); err != nil || e.Recovered != 1 || !e.AcceptedAt.Equal(left.AcceptedAt) {
		t.Errorf("the recovered entry: %+v, %v; want recovered 1, accepted at %v", e, err, left.AcceptedAt)
	}
	release()
	got := map[string]error{}
	for range 2 {
		r := next.wait(t)
		got[r.d.ID] = r.err
	}
	if got["left"] != nil || got["crashes"] == nil || !strings.Contains(got["crashes"].Error(), "interrupted 4 times") {
		t.Errorf("handled %v, want left done and crashes failed for its interruptions", got)
	}
	next.rec.mu.Lock()
	bumped := len(next.rec.releases)
	next.rec.mu.Unlock()
	if bumped != 1 {
		t.Errorf("%d releases bumped, want the one left", bumped)
	}
	if paths := strings.Join(testkit.Paths(t, dir), " "); paths != "delivery-torn.json.failed" {
		t.Errorf("the journal holds %q, want only the entry that did not decode, kept aside", paths)
	}
	logs := next.logs.String()
	for _, want := range []string{`"msg":"delivery recovered`, `its journal entry cannot be read`, `removed the temporary file`} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs lack %q:\n%s", want, logs)
		}
	}
}
