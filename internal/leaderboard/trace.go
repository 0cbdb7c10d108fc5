package leaderboard

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path"
	"slices"

	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
)

// Trace formats a declaration may name.
const (
	TraceFormatV2   = "tracev2"
	TraceFormatOTel = "otel"
	TraceFormatWeka = "weka"
)

// A trace is stored once, by content hash, under
// results/traces/<sha256>/: a TraceV2 pair as header.yaml and data.csv, an
// OpenTelemetry agentic JSON as otel.json, a Weka agentic JSONL as
// weka.jsonl (converted by the build's `blis convert` at run time).
const (
	traceHeaderFile = "header.yaml"
	traceDataFile   = "data.csv"
	// MaxTraceBytes caps one trace file, read from a declaration's
	// directory or from a results directory's traces/.
	MaxTraceBytes = 256 << 20
)

// TraceSourceFile is the stored name of a trace that is converted before
// replay ("otel.json", "weka.jsonl"); "" for a TraceV2 pair.
func TraceSourceFile(format string) string {
	switch format {
	case TraceFormatOTel:
		return "otel.json"
	case TraceFormatWeka:
		return "weka.jsonl"
	}
	return ""
}

// TraceFiles are the bytes of one trace: a TraceV2 pair (Header, Data) or
// the Source file of an otel or weka trace.
type TraceFiles struct {
	Format       string
	Header, Data []byte
	Source       []byte
}

// Hash is the content hash a trace is stored and referenced by: sha256 of
// "tracev2", NUL, the header bytes, NUL, the data bytes for a TraceV2 pair;
// sha256 of the format ("otel", "weka"), NUL, the file's bytes otherwise.
func (t TraceFiles) Hash() string {
	h := sha256.New()
	if t.Format == "" || t.Format == TraceFormatV2 {
		h.Write([]byte("tracev2\x00"))
		h.Write(t.Header)
		h.Write([]byte{0})
		h.Write(t.Data)
	} else {
		h.Write([]byte(t.Format + "\x00"))
		h.Write(t.Source)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Files are the stored files of t by name (what traces/<sha256>/ holds).
func (t TraceFiles) Files() map[string][]byte {
	if name := TraceSourceFile(t.Format); name != "" {
		return map[string][]byte{name: t.Source}
	}
	return map[string][]byte{traceHeaderFile: t.Header, traceDataFile: t.Data}
}

// readStoredTrace reads the trace of format stored under dir (a
// traces/<sha256>/ directory of fsys).
func readStoredTrace(fsys fs.FS, dir, format string) (TraceFiles, error) {
	tf := TraceFiles{Format: format}
	if name := TraceSourceFile(format); name != "" {
		raw, err := readTraceFile(fsys, dir+name)
		tf.Source = raw
		return tf, err
	}
	h, err := readTraceFile(fsys, dir+traceHeaderFile)
	if err != nil {
		return tf, err
	}
	d, err := readTraceFile(fsys, dir+traceDataFile)
	tf.Header, tf.Data = h, d
	return tf, err
}

// TracePaths lists the files of every trace the declaration names, as
// written (relative to runs.yaml), sorted and without repeats.
func (d *Declaration) TracePaths() []string {
	var out []string
	add := func(w *Workload) {
		if w == nil || w.Trace == nil {
			return
		}
		for _, f := range []string{w.Trace.Header, w.Trace.Data, w.Trace.File} {
			if f != "" {
				out = append(out, f)
			}
		}
	}
	for _, g := range d.Groups {
		add(g.Workload)
		for _, c := range g.Candidates {
			add(c.Workload)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// ResolveTraces reads every trace a declaration names, from base (the
// directory of runs.yaml, best an os.Root's FS so that nothing is read
// from outside it; paths are relative, slash-separated, without ".."), and
// sets each trace's SHA256. It returns the files by hash. Each trace file
// must be a regular file (a symbolic link, a device or a pipe is refused
// before it is opened) of at most 256 MiB (checked before and while
// reading). A trace that cannot be read is an Errors naming the runs.yaml
// line that declares it.
func ResolveTraces(d *Declaration, base fs.FS) (map[string]TraceFiles, error) {
	out := map[string]TraceFiles{}
	resolve := func(at string, w *Workload) *Error {
		if w == nil || w.Trace == nil {
			return nil
		}
		tf := TraceFiles{Format: w.Trace.Format}
		type part struct {
			field, name string
			dst         *[]byte
		}
		var parts []part
		switch w.Trace.Format {
		case TraceFormatV2:
			parts = []part{{"header", w.Trace.Header, &tf.Header}, {"data", w.Trace.Data, &tf.Data}}
		case TraceFormatOTel, TraceFormatWeka:
			parts = []part{{"file", w.Trace.File, &tf.Source}}
		default:
			return nil
		}
		for _, f := range parts {
			field := at + ".trace." + f.field
			if !fs.ValidPath(f.name) || path.Clean(f.name) != f.name {
				return d.errorAt(field, "trace file %q: give a clean path relative to runs.yaml, without \"..\"", f.name)
			}
			raw, err := readTraceFile(base, f.name)
			if err != nil {
				return d.errorAt(field, "trace file: %v", err)
			}
			if len(bytes.TrimSpace(raw)) == 0 {
				return d.errorAt(field, "trace file %s: an empty file is not a trace", f.name)
			}
			*f.dst = raw
		}
		w.Trace.SHA256 = tf.Hash()
		out[w.Trace.SHA256] = tf
		return nil
	}
	var errs Errors
	for gi := range d.Groups {
		g := &d.Groups[gi]
		if e := resolve(fmt.Sprintf("groups[%d].workload", gi), g.Workload); e != nil {
			errs = append(errs, e)
		}
		for ci := range g.Candidates {
			if e := resolve(fmt.Sprintf("groups[%d].candidates[%d].workload", gi, ci), g.Candidates[ci].Workload); e != nil {
				errs = append(errs, e)
			}
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return out, nil
}

// readTraceFile reads one trace file of base: a regular file of at most
// MaxTraceBytes, its size checked before reading and while reading
// (diskio.ReadFileMax).
func readTraceFile(base fs.FS, name string) ([]byte, error) {
	if st, err := fs.Lstat(base, name); err == nil && st.Mode().IsRegular() && st.Size() > MaxTraceBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes (%d)", name, MaxTraceBytes, st.Size())
	}
	return diskio.ReadFileMax(base, name, MaxTraceBytes)
}
