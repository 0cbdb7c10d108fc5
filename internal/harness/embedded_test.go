package harness

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

// corpusCheckout is a git checkout with corpus/ledger/{ledger.json,
// units/a.json} and corpus/catalog/m.json committed; it returns the
// checkout and its corpus directory (what a binary built there embeds).
func corpusCheckout(t *testing.T) (dir, corpusDir string) {
	t.Helper()
	dir = t.TempDir()
	corpusDir = filepath.Join(dir, "corpus")
	for p, body := range map[string]string{
		"ledger/ledger.json": `{"name": "x"}`, "ledger/units/a.json": `{"id": "a"}`, "catalog/m.json": "{}",
	} {
		testkit.WriteFile(t, filepath.Join(corpusDir, p), body)
	}
	harnesstest.GitInit(t, dir)
	harnesstest.CommitAll(t, dir, "corpus")
	return dir, corpusDir
}

func TestCheckEmbeddedCorpus(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	check := func(dir, corpusDir string) error {
		return CheckEmbeddedCorpus(ctx, dir, "corpus", os.DirFS(corpusDir))
	}
	dir, cdir := corpusCheckout(t)
	if err := check(dir, cdir); err != nil {
		t.Fatalf("the committed corpus: %v", err)
	}

	for name, c := range map[string]struct {
		edit func(dir, cdir string)
		want string
	}{
		"untracked unit": {func(_, c string) { testkit.WriteFile(t, filepath.Join(c, "ledger/units/b.json"), "{}") }, "corpus/ledger/units/b.json is not committed"},
		"ignored unit": {func(d, c string) {
			testkit.WriteFile(t, filepath.Join(d, ".gitignore"), "*.local.json\n")
			harnesstest.CommitAll(t, d, "ignore")
			testkit.WriteFile(t, filepath.Join(c, "ledger/units/c.local.json"), "{}")
		}, "corpus/ledger/units/c.local.json is not committed"},
		"modified": {func(_, c string) { testkit.WriteFile(t, filepath.Join(c, "catalog/m.json"), `{"changed": 1}`) }, "corpus/catalog/m.json differs from HEAD"},
		"deleted":  {func(_, c string) { os.Remove(filepath.Join(c, "ledger/units/a.json")) }, "corpus/ledger/units/a.json is committed but not embedded"},
	} {
		dir, cdir := corpusCheckout(t)
		c.edit(dir, cdir)
		err := check(dir, cdir)
		if !errors.Is(err, ErrEmbeddedCorpusDiffers) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", name, err, c.want)
		}
	}

	// Files go:embed leaves out (".x", "_x") are not compared; a directory
	// of the tree that is not embedded (sources/) is not either.
	dir, cdir = corpusCheckout(t)
	testkit.WriteFile(t, filepath.Join(cdir, "ledger/.hidden.json"), "{}")
	testkit.WriteFile(t, filepath.Join(cdir, "sources/raw.json"), "[]")
	harnesstest.CommitAll(t, dir, "more")
	os.Remove(filepath.Join(cdir, "ledger/.hidden.json"))
	embedded := t.TempDir()
	if err := os.CopyFS(embedded, os.DirFS(cdir)); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(embedded, "sources"))
	if err := CheckEmbeddedCorpus(ctx, dir, "corpus", os.DirFS(embedded)); err != nil {
		t.Errorf("files go:embed skips and directories it does not embed: %v", err)
	}
}

// TestScoreRefusesAnUncommittedEmbeddedCorpus: a clean harness checkout whose
// binary embeds a file the commit does not have is refused before anything
// runs, naming the file; the same corpus committed scores.
func TestScoreRefusesAnUncommittedEmbeddedCorpus(t *testing.T) {
	o := scoreOpts(t, "ledger", "v0.2.0")
	dir, cdir := corpusCheckout(t)
	testkit.WriteFile(t, filepath.Join(dir, "go.mod"), "module "+harnesstest.ModulePath+"\n")
	harnesstest.CommitAll(t, dir, "go.mod")
	testkit.WriteFile(t, filepath.Join(cdir, "ledger/units/extra.json"), "{}")
	o.HarnessDir, o.Embedded, o.EmbeddedRoot = dir, os.DirFS(cdir), "corpus"
	_, err := Score(context.Background(), o)
	if !errors.Is(err, ErrEmbeddedCorpusDiffers) || !strings.Contains(err.Error(), "corpus/ledger/units/extra.json is not committed") {
		t.Fatalf("error %v, want the untracked embedded file named", err)
	}
	harnesstest.CommitAll(t, dir, "extra")
	if _, err := Score(context.Background(), o); err != nil {
		t.Errorf("the committed corpus: %v", err)
	}
}
