package leaderboard

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
)

// A TraceV2 pair is stored once, by content hash, as
// results/traces/<sha256>/header.yaml and data.csv.
const (
	TraceHeaderFile = "header.yaml"
	TraceDataFile   = "data.csv"
	// maxTraceBytes caps one trace file read from a declaration.
	maxTraceBytes = 256 << 20
)

// TraceFiles are the bytes of one TraceV2 pair.
type TraceFiles struct {
	Header, Data []byte
}

// Hash is the content hash a trace is stored and referenced by: sha256 of
// "tracev2", NUL, the header bytes, NUL, the data bytes.
func (t TraceFiles) Hash() string {
	h := sha256.New()
	h.Write([]byte("tracev2\x00"))
	h.Write(t.Header)
	h.Write([]byte{0})
	h.Write(t.Data)
	return hex.EncodeToString(h.Sum(nil))
}

// ResolveTraces reads every trace a declaration names, from base (the
// directory of runs.yaml; paths are relative, slash-separated, without
// ".."), and sets each trace's SHA256. It returns the files by hash. An
// unreadable trace is an error naming the group and file.
func ResolveTraces(d *Declaration, base fs.FS) (map[string]TraceFiles, error) {
	out := map[string]TraceFiles{}
	resolve := func(where string, w *Workload) error {
		if w == nil || w.Trace == nil || w.Trace.Format != "tracev2" {
			return nil
		}
		var tf TraceFiles
		for _, f := range []struct {
			name string
			dst  *[]byte
		}{{w.Trace.Header, &tf.Header}, {w.Trace.Data, &tf.Data}} {
			if !fs.ValidPath(f.name) || path.Clean(f.name) != f.name {
				return fmt.Errorf("%s: trace file %q: give a clean path relative to runs.yaml, without \"..\"", where, f.name)
			}
			raw, err := fs.ReadFile(base, f.name)
			if err != nil {
				return fmt.Errorf("%s: trace file: %w", where, err)
			}
			if len(raw) > maxTraceBytes {
				return fmt.Errorf("%s: trace file %s is larger than %d bytes", where, f.name, maxTraceBytes)
			}
			*f.dst = raw
		}
		if len(bytes.TrimSpace(tf.Header)) == 0 || len(bytes.TrimSpace(tf.Data)) == 0 {
			return fmt.Errorf("%s: trace %s / %s: an empty file is not a trace", where, w.Trace.Header, w.Trace.Data)
		}
		w.Trace.SHA256 = tf.Hash()
		out[w.Trace.SHA256] = tf
		return nil
	}
	for gi := range d.Groups {
		g := &d.Groups[gi]
		if err := resolve("group "+g.ID, g.Workload); err != nil {
			return nil, err
		}
		for ci := range g.Candidates {
			if err := resolve("group "+g.ID+" candidate "+g.Candidates[ci].ID, g.Candidates[ci].Workload); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// StoreTraces writes each trace under dir/<sha256>/ (dir is the results'
// traces/), once: a trace already stored with the same bytes is left alone.
func StoreTraces(dir string, traces map[string]TraceFiles) error {
	for sum, tf := range traces {
		td := filepath.Join(dir, sum)
		if err := os.MkdirAll(td, 0o755); err != nil {
			return err
		}
		for name, raw := range map[string][]byte{TraceHeaderFile: tf.Header, TraceDataFile: tf.Data} {
			p := filepath.Join(td, name)
			if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, raw) {
				continue
			}
			if err := diskio.WriteAtomic(p, raw); err != nil {
				return err
			}
		}
	}
	return nil
}
