package lbrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"sync"

	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/pool"
)

// Options say how Run runs a declaration's runs and where it files them.
type Options struct {
	// Out is the results directory. Each result is filed there
	// (<group>/<run>.json, atomically) as soon as its run ends, so an
	// interrupted Run keeps every result it finished and a later Run with
	// Reuse set to Out resumes.
	Out string
	// Reuse is a results directory whose results stand for running again
	// (Reuse); "" reuses nothing. It may be Out itself.
	Reuse string
	// Jobs is the number of simulations run at once (at least 1).
	Jobs int
	// Log gets a line per run not reused, saying why (nil: none).
	Log *slog.Logger
	// Progress, when set, is called once per run that ran (not reused),
	// after its result is filed, never concurrently.
	Progress func(done, total int, r *leaderboard.Result)
}

// Summary is what Run did.
type Summary struct {
	// Results holds the result of every run, in the order of the runs;
	// after an error, those filed before it (nil for the others).
	Results []*leaderboard.Result
	// Reused and Ran count the results kept from Options.Reuse and the
	// runs simulated.
	Reused, Ran int
}

// SimulateAll runs every run on s, the most expensive first on Options.Jobs
// workers, and files each result in Options.Out when its run ends; with
// Options.Reuse, a result that stands for running again (Reuse) is copied
// into Out byte for byte instead. When ctx ends, the runs it cut short are
// not filed (their results would say "cancelled", not what the simulator
// gives) and Run returns ctx's error after the runs under way have stopped.
func SimulateAll(ctx context.Context, s *Sim, runs []leaderboard.DeclaredRun, o Options) (Summary, error) {
	log := o.Log
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	sum := Summary{Results: make([]*leaderboard.Result, len(runs))}
	todo := make([]int, 0, len(runs))
	if o.Reuse != "" {
		kept, err := Reuse(s, o.Reuse, runs, log)
		if err != nil {
			return sum, fmt.Errorf("--reuse: %w", err)
		}
		for i := range runs {
			k, ok := kept[i]
			if !ok {
				todo = append(todo, i)
				continue
			}
			if err := k.copyTo(o.Out); err != nil {
				return sum, err
			}
			sum.Results[i] = k.Result
			sum.Reused++
		}
	} else {
		for i := range runs {
			todo = append(todo, i)
		}
	}
	pending := make([]leaderboard.DeclaredRun, len(todo))
	for j, i := range todo {
		pending[j] = runs[i]
	}
	var mu sync.Mutex
	var fileErr error
	pool.Run(ctx, max(o.Jobs, 1), Costs(pending), func(ctx context.Context, j int) {
		r := s.Simulate(ctx, pending[j])
		if ctx.Err() != nil {
			return
		}
		err := FileResult(o.Out, r)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			fileErr = errors.Join(fileErr, fmt.Errorf("file %s/%s: %w", r.Group, r.Run, err))
			return
		}
		sum.Results[todo[j]] = r
		sum.Ran++
		if o.Progress != nil {
			o.Progress(sum.Ran, len(todo), r)
		}
	})
	if err := ctx.Err(); err != nil {
		return sum, err
	}
	return sum, fileErr
}

// Kept is a result kept from a results directory by Reuse, with its file.
type Kept struct {
	Result *leaderboard.Result
	File   string
}

// copyTo files the kept result in dir byte for byte (nothing when it is
// that file already).
func (k Kept) copyTo(dir string) error {
	dst := ResultFile(dir, k.Result.Group, k.Result.Run)
	if same, err := sameFile(k.File, dst); err != nil || same {
		return err
	}
	raw, err := os.ReadFile(k.File)
	if err != nil {
		return err
	}
	return writeResultFile(dir, dst, raw)
}

func sameFile(a, b string) (bool, error) {
	sa, err := os.Stat(a)
	if err != nil {
		return false, err
	}
	sb, err := os.Stat(b)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil && os.SameFile(sa, sb), err
}

// Reuse picks the results of dir that stand for running runs again on s
// (Sim.Reuse), by index in runs; the other runs are left to run. A missing
// dir holds nothing to reuse; a file of dir that is not a valid result
// (edited, misfiled, another format) is not reused, and log says so, as it
// says why each filed result is run again.
func Reuse(s *Sim, dir string, runs []leaderboard.DeclaredRun, log *slog.Logger) (map[int]Kept, error) {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		log.Info("nothing to reuse: no results directory", "dir", dir)
		return nil, nil
	}
	prev, probs, err := ReadResults(dir)
	if err != nil {
		return nil, err
	}
	for _, p := range probs {
		log.Warn("not reusing a file that does not read as a result", "problem", p.String())
	}
	kept := map[int]Kept{}
	for i, r := range runs {
		key := r.Group + "/" + r.ID
		p := prev[key]
		if p == nil {
			continue
		}
		if ok, why := s.Reuse(p, r); !ok {
			log.Info("running again", "run", key, "because", why)
			continue
		}
		kept[i] = Kept{Result: p, File: ResultFile(dir, r.Group, r.ID)}
	}
	return kept, nil
}
