package lbrun

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/pin"
)

// DeclarationError is an error reading a declaration: runs.yaml (through
// --runs), the declarations file beside the results, the traces they name.
// Its message names the file, and the line or flag, itself: CommandError
// passes it on as it is.
type DeclarationError struct{ Err error }

func (e *DeclarationError) Error() string { return e.Err.Error() }
func (e *DeclarationError) Unwrap() error { return e.Err }

// CommandError is err as the leaderboard's command cmd reports it: "cmd:
// err", except an error reading the declaration (DeclarationError), which
// names its file itself and is returned as it is. nil stays nil.
func CommandError(cmd string, err error) error {
	var de *DeclarationError
	if err == nil || errors.As(err, &de) {
		return err
	}
	return fmt.Errorf("%s: %w", cmd, err)
}

// DefaultResults is the results directory beside a runs.yaml.
func DefaultResults(runs string) string { return filepath.Join(filepath.Dir(runs), "results") }

// DeclarationsFile is the file of the candidates declared through the API
// of `leaderboard serve` (leaderboard.DeclarationsFile), beside the results
// directory results.
func DeclarationsFile(results string) string {
	return filepath.Join(filepath.Dir(filepath.Clean(results)), leaderboard.DeclarationsFile)
}

// ReadDeclaration reads and decodes the runs.yaml at runs and resolves the
// traces it names (ReadRuns); the candidates declared through `leaderboard
// serve` (the declarations file beside results, when there is one) are
// merged in (MergeDeclared). Every error is a *DeclarationError.
func ReadDeclaration(runs, results string) (*leaderboard.Declaration, map[string]leaderboard.TraceFiles, error) {
	d, traces, err := ReadRuns(runs)
	if err != nil {
		return nil, nil, err
	}
	if d, err = MergeDeclared(d, results); err != nil {
		return nil, nil, err
	}
	return d, traces, nil
}

// ReadRuns reads and decodes the runs.yaml at path (at most
// leaderboard.MaxDeclarationBytes; an error reading it names --runs) and
// resolves the traces it names, relative to its directory (ResolveTraces),
// to their content hashes. Every error is a *DeclarationError.
func ReadRuns(path string) (*leaderboard.Declaration, map[string]leaderboard.TraceFiles, error) {
	src, err := diskio.ReadPathMax(path, leaderboard.MaxDeclarationBytes)
	if err != nil {
		return nil, nil, &DeclarationError{fmt.Errorf("--runs: %w", err)}
	}
	d, err := leaderboard.Decode(src, path)
	if err != nil {
		return nil, nil, &DeclarationError{err}
	}
	traces, err := ResolveTraces(d, filepath.Dir(path))
	if err != nil {
		return nil, nil, &DeclarationError{err}
	}
	return d, traces, nil
}

// MergeDeclared merges the declarations file beside results
// (DeclarationsFile) into d (leaderboard.Merge); d itself when there is
// none. The traces of its groups runs.yaml lacks (saved trace workloads)
// are resolved relative to its directory. Every error is a *DeclarationError.
func MergeDeclared(d *leaderboard.Declaration, results string) (*leaderboard.Declaration, error) {
	file := DeclarationsFile(results)
	src, err := diskio.ReadPathMax(file, leaderboard.MaxDeclarationBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return d, nil
	}
	if err != nil {
		return nil, &DeclarationError{err}
	}
	extra, err := leaderboard.Decode(src, file)
	if err != nil {
		return nil, &DeclarationError{err}
	}
	// A group of its own is a saved trace workload: its trace names the
	// stored files, relative to the declarations file's directory.
	saved := *extra
	saved.Groups = nil
	for _, g := range extra.Groups {
		if d.Group(g.ID) == nil {
			saved.Groups = append(saved.Groups, g)
		}
	}
	if _, err := ResolveTraces(&saved, filepath.Dir(file)); err != nil {
		return nil, &DeclarationError{err}
	}
	merged, err := leaderboard.Merge(d, extra)
	if err != nil {
		return nil, &DeclarationError{err}
	}
	return merged, nil
}

// ReadPinPair reads the leaderboard's simulator/catalog pair from the pin
// file pinFile (an error reading it names --pin). A file without a
// leaderboard section is an error.
func ReadPinPair(pinFile string) (pin.LeaderboardPair, error) {
	src, err := diskio.ReadPathMax(pinFile, pin.MaxFileBytes)
	if err != nil {
		return pin.LeaderboardPair{}, fmt.Errorf("--pin: %w", err)
	}
	p, err := pin.Parse(src, pinFile)
	if err != nil {
		return pin.LeaderboardPair{}, err
	}
	if p.Leaderboard == nil {
		return pin.LeaderboardPair{}, fmt.Errorf("%s: pins no leaderboard pair: add a leaderboard: section with simulator and catalog (see docs/LEADERBOARD.md)", pinFile)
	}
	return *p.Leaderboard, nil
}

// CatalogArg is the pinned catalog c as a catalog argument
// (harness.ResolveCatalog, `leaderboard run --catalog`): none, bundled, or
// its path in the checkout.
func CatalogArg(c pin.LeaderboardCatalog, checkout string) string {
	if c.Source == pin.None || c.Source == pin.Bundled {
		return c.Source
	}
	return filepath.Join(checkout, filepath.FromSlash(c.Source))
}
