package harness

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/git"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
)

// ErrEmbeddedCorpusDiffers is returned when the corpus embedded in the
// running binary is not the one committed at the harness checkout's HEAD.
var ErrEmbeddedCorpusDiffers = errors.New("the corpus embedded in this binary is not the one committed at the harness's HEAD")

// CheckEmbeddedCorpus compares embedded, the data embedded in the running
// binary (rooted at the directory its embed patterns are relative to), with
// the tree of HEAD under root (e.g. "corpus") in the harness checkout dir
// (its own top level): every embedded file must be committed there with the
// same bytes, and every committed file of the embedded directories must be
// embedded. go build embeds whatever the working tree holds, untracked and
// ignored files included, which the checkout's clean check (tracked files
// only) cannot see: an untracked unit file would be scored while the
// figures claim the corpus of a clean commit. Files go:embed never embeds
// (a path element starting with "." or "_") are not compared. The error
// names up to ten differing files.
func CheckEmbeddedCorpus(ctx context.Context, dir, root string, embedded fs.FS) error {
	tops, err := fs.ReadDir(embedded, ".")
	if err != nil {
		return fmt.Errorf("embedded corpus: %w", err)
	}
	args := []string{"ls-tree", "-r", "-z", "--full-tree", "HEAD", "--"}
	for _, e := range tops {
		args = append(args, path.Join(root, e.Name()))
	}
	out, err := git.RunRaw(ctx, dir, args...)
	if err != nil {
		return fmt.Errorf("embedded corpus: %w", err)
	}
	committed := map[string]string{} // path under root -> blob id
	for _, rec := range strings.Split(out, "\x00") {
		meta, p, ok := strings.Cut(rec, "\t")
		if !ok {
			continue
		}
		f := strings.Fields(meta)
		if len(f) != 3 || f[1] != "blob" || embedSkips(p) {
			continue
		}
		committed[strings.TrimPrefix(p, root+"/")] = f[2]
	}
	var problems []string
	err = fs.WalkDir(embedded, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		raw, err := fs.ReadFile(embedded, p)
		if err != nil {
			return err
		}
		id, ok := committed[p]
		delete(committed, p)
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s is not committed (untracked or ignored)", path.Join(root, p)))
		case blobID(raw, len(id)) != id:
			problems = append(problems, fmt.Sprintf("%s differs from HEAD", path.Join(root, p)))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("embedded corpus: %w", err)
	}
	for _, p := range slices.Sorted(maps.Keys(committed)) {
		problems = append(problems, fmt.Sprintf("%s is committed but not embedded", path.Join(root, p)))
	}
	if len(problems) == 0 {
		return nil
	}
	slices.Sort(problems)
	more := ""
	if len(problems) > 10 {
		more = fmt.Sprintf("; and %d more", len(problems)-10)
		problems = problems[:10]
	}
	head, _ := git.Run(ctx, dir, "rev-parse", "HEAD")
	return fmt.Errorf("%w (%s in %s): %s%s; commit or remove them and rebuild, or score such data with --ledger DIR (its figures are experimental)",
		ErrEmbeddedCorpusDiffers, ident.Short(head), dir, strings.Join(problems, "; "), more)
}

// embedSkips reports whether go:embed leaves out p when embedding the
// directory holding it: a path element starting with "." or "_".
func embedSkips(p string) bool {
	for _, e := range strings.Split(p, "/") {
		if strings.HasPrefix(e, ".") || strings.HasPrefix(e, "_") {
			return true
		}
	}
	return false
}

// blobID is git's object id of a blob holding raw: SHA-1 (40 hex) or, in a
// SHA-256 repository, SHA-256 (64 hex), as the committed id's length says.
func blobID(raw []byte, hexLen int) string {
	header := fmt.Sprintf("blob %d\x00", len(raw))
	if hexLen == 64 {
		h := sha256.New()
		h.Write([]byte(header))
		h.Write(raw)
		return hex.EncodeToString(h.Sum(nil))
	}
	h := sha1.New()
	h.Write([]byte(header))
	h.Write(raw)
	return hex.EncodeToString(h.Sum(nil))
}
