package webhook

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
)

// The journal keeps each accepted delivery on disk (Options.JournalDir)
// from before it is acknowledged (202) until its work ends, so that a bot
// killed with work queued or running loses none: Recover queues what the
// last process left again. An entry is one file, journalPrefix + the
// delivery id + ".json", written atomically (diskio.WriteAtomic: a reader
// never sees a torn one; a crash mid-write leaves a temporary file, which
// Recover removes).
const (
	journalPrefix = "delivery-"
	// MaxRecoveries bounds how often one delivery is queued again by
	// Recover: a delivery whose work was interrupted that often (a crash
	// it causes itself) is reported as failed instead.
	MaxRecoveries = 3
	// maxJournalEntryBytes caps an entry's file: a body and its envelope.
	maxJournalEntryBytes = 4 << 20
)

// journalEntry is one accepted delivery as the journal keeps it.
type journalEntry struct {
	ID    string `json:"id"`
	Event string `json:"event"`
	// Body is the signed payload (base64 in the file).
	Body       []byte    `json:"body"`
	AcceptedAt time.Time `json:"accepted_at"`
	// Recovered counts the times Recover queued it again.
	Recovered int `json:"recovered"`
}

// journalPath is the file of delivery id's entry. A delivery id is
// deliveryIDRe's letters, digits, '-', '_' and '.', so the name stays in
// the directory.
func (s *Server) journalPath(id string) string {
	return filepath.Join(s.opts.JournalDir, journalPrefix+id+".json")
}

// record writes q's journal entry, accepted at acceptedAt (the zero time:
// now) and recovered that many times (nothing without a journal).
func (s *Server) record(q queued, acceptedAt time.Time, recovered int) error {
	if s.opts.JournalDir == "" {
		return nil
	}
	if acceptedAt.IsZero() {
		acceptedAt = s.opts.Clock.Now().UTC()
	}
	b, err := json.Marshal(journalEntry{ID: q.d.ID, Event: q.d.Event, Body: q.d.Body,
		AcceptedAt: acceptedAt, Recovered: recovered})
	if err != nil {
		return fmt.Errorf("journal %s: %w", q.d.ID, err)
	}
	if err := diskio.WriteAtomic(s.journalPath(q.d.ID), b); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

// forget removes q's journal entry once its work has ended.
func (s *Server) forget(q queued) {
	if s.opts.JournalDir == "" {
		return
	}
	if err := os.Remove(s.journalPath(q.d.ID)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		q.d.Log.Error("journal: the ended delivery's entry stays; it will run again after a restart", "err", err)
	}
}

// Recover queues again the deliveries the journal holds: the work a
// previous process accepted and did not finish (it was killed, or stopped
// before its queue drained). Call it after New and before Start. Each is
// decided again by its event's handler and queued beyond QueueSize (it was
// accepted within it), with a new deadline; it is logged as recovered.
// A delivery recovered MaxRecoveries times already, an entry that does
// not decode and one whose delivery no handler takes are reported as
// failed (logged with the reason; the entry is removed, or kept beside
// with the suffix ".failed" when it does not decode). Temporary files of
// an entry whose write was interrupted are removed. It returns the number
// of deliveries queued; an error is a journal that cannot be read.
func (s *Server) Recover() (int, error) {
	dir := s.opts.JournalDir
	if dir == "" {
		return 0, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0, fmt.Errorf("journal: %w", err)
	}
	files, err := os.ReadDir(dir)
	if err != nil {
		return 0, fmt.Errorf("journal: %w", err)
	}
	var entries []journalEntry
	for _, f := range files {
		name := f.Name()
		path := filepath.Join(dir, name)
		switch {
		case strings.HasPrefix(name, "."+journalPrefix) && strings.Contains(name, ".tmp-"):
			s.log.Warn("journal: removed the temporary file of an entry whose write was interrupted (its delivery was never acknowledged)", "file", path)
			os.Remove(path)
			continue
		case !strings.HasPrefix(name, journalPrefix) || !strings.HasSuffix(name, ".json"):
			continue
		}
		e, err := readJournalEntry(path)
		if err != nil {
			s.log.Error("delivery failed", "reason", "its journal entry cannot be read; kept as "+name+".failed", "err", err)
			os.Rename(path, path+".failed")
			continue
		}
		entries = append(entries, e)
	}
	// Oldest first, as they were accepted.
	slices.SortStableFunc(entries, func(a, b journalEntry) int { return a.AcceptedAt.Compare(b.AcceptedAt) })
	queued := 0
	for _, e := range entries {
		if s.recoverOne(e) {
			queued++
		}
	}
	return queued, nil
}

// recoverOne queues e again, or reports it as failed; it reports whether
// it was queued.
func (s *Server) recoverOne(e journalEntry) bool {
	d := s.delivery(e.ID, e.Event, e.Body)
	fail := func(reason string, err error) bool {
		args := []any{"reason", reason, "accepted_at", e.AcceptedAt}
		if err != nil {
			args = append(args, "err", err)
		}
		d.Log.Error("delivery failed", args...)
		os.Remove(s.journalPath(e.ID))
		if s.opts.Done != nil {
			s.opts.Done(d, fmt.Errorf("%s", reason))
		}
		return false
	}
	if e.Recovered >= MaxRecoveries {
		return fail(fmt.Sprintf("its work was interrupted %d times (the bot stopped or crashed while it ran); not run again: redeliver it once the cause is fixed", e.Recovered+1), nil)
	}
	h, ok := s.opts.Handlers[e.Event]
	if !ok {
		return fail("no handler for its event any more", nil)
	}
	job, reason, err := accept(h, d)
	switch {
	case err != nil:
		return fail("its payload no longer decodes", err)
	case job == nil:
		return fail("no longer work: "+reason, nil)
	}
	sum := sha256Hex(e.Body)
	q := queued{d: d, job: job, digest: sum, deadline: s.opts.Clock.Now().Add(s.opts.HandleTimeout)}
	if err := s.record(q, e.AcceptedAt, e.Recovered+1); err != nil {
		return fail("its journal entry cannot be updated", err)
	}
	s.mu.Lock()
	for _, k := range keys(q) {
		s.inFlight[k] = true
	}
	s.queue = append(s.queue, q)
	s.wake.Broadcast()
	s.mu.Unlock()
	d.Log.Warn("delivery recovered: accepted by a bot that stopped before its work ended; queued again",
		"accepted_at", e.AcceptedAt, "recovered", e.Recovered+1)
	return true
}

// readJournalEntry reads and decodes one entry, within its cap.
func readJournalEntry(path string) (journalEntry, error) {
	b, err := diskio.ReadPathMax(path, maxJournalEntryBytes)
	if err != nil {
		return journalEntry{}, err
	}
	var e journalEntry
	if err := json.Unmarshal(b, &e); err != nil {
		return journalEntry{}, fmt.Errorf("%s: %w", path, err)
	}
	if len(e.ID) > MaxDeliveryIDBytes || !deliveryIDRe.MatchString(e.ID) || e.Event == "" || !json.Valid(e.Body) {
		return journalEntry{}, fmt.Errorf("%s: not a delivery (id %q, event %q)", path, e.ID, e.Event)
	}
	if filepath.Base(path) != journalPrefix+e.ID+".json" {
		return journalEntry{}, fmt.Errorf("%s: holds delivery %q", path, e.ID)
	}
	return e, nil
}
