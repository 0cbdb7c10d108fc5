package diskio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// MaxFileName is the longest file name (bytes) the file systems the
// project writes to take (ext4, tmpfs, APFS, NTFS in UTF-16 units).
const MaxFileName = 255

// TempNameExtra is how many bytes longer than a file's name is the name of
// the temporary file WriteFiles, WriteAtomic and ReplaceDir write it as
// first: ".<name>.tmp-" and up to 10 digits. A file whose name is over
// MaxFileName - TempNameExtra bytes cannot be written ("file name too long").
const TempNameExtra = len(".") + len(".tmp-") + 10

// WriteFiles writes files (clean slash paths under root, fs.ValidPath: any
// other is refused before anything is written; mode 0644, their
// directories made as needed) all or nothing as far as the file system
// allows, through a Tree of root (made if missing): a path with a
// symbolic link in it below root is refused, naming the link, before
// anything is written. Every file is first written to a temporary sibling,
// then each is renamed into place. On an error before the renames (a
// directory where a file goes is one) no file is replaced and no
// temporary file is left behind, though directories made for the files
// stay; a rename that fails leaves the files renamed before it in place. A
// process killed mid-way leaves its temporary files
// (".<name>.tmp-<random>"). Errors of a write or rename name the file.
func WriteFiles(root string, files map[string][]byte) error {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	t, err := OpenTree(root)
	if err != nil {
		return err
	}
	defer t.Close()
	return t.WriteFiles(files)
}

// ReplaceDir makes dir hold exactly files (slash paths, WriteFiles): they
// are written into a new sibling directory (mode 0755), which then takes
// dir's place, so a file dir held and files does not name is gone. A dir
// that is a symbolic link or not a directory is refused, naming it, before
// anything is written: the swap would replace the link by a directory and
// leave the old content at its target, where the user looks, or lose the
// file. On an error dir is left as it was (or absent, as it was) and the
// new directory is removed, except when only the old directory's removal
// fails: dir is replaced then. A process killed mid-way leaves the new
// directory (".<name>.new-<random>") and, between the two renames, the old
// one beside it (the same name and ".old") with dir absent.
func ReplaceDir(dir string, files map[string][]byte) error {
	return ReplaceDirFunc(dir, func(tmp string) error { return WriteFiles(tmp, files) })
}

// ReplaceDirFunc is ReplaceDir with the files written by fill into the new
// directory tmp (WriteFiles, as many times as it likes), so that they
// need not all be in memory at once; an error of fill is ReplaceDir's
// error of its writes: dir is left as it was.
func ReplaceDirFunc(dir string, fill func(tmp string) error) error {
	dir = filepath.Clean(dir)
	if st, err := os.Lstat(dir); err == nil && st.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("replace %s: it is a symbolic link; refusing to replace it (name the directory it points to)", dir)
	} else if err == nil && !st.IsDir() {
		return fmt.Errorf("replace %s: it is not a directory; refusing to replace it", dir)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".new-")
	if err != nil {
		return err
	}
	if err := fill(tmp); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	old := ""
	if _, err := os.Lstat(dir); err == nil {
		old = tmp + ".old"
		if err := os.Rename(dir, old); err != nil {
			os.RemoveAll(tmp)
			return err
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		os.RemoveAll(tmp)
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if old != "" {
			os.Rename(old, dir)
		}
		os.RemoveAll(tmp)
		return err
	}
	if old != "" {
		return os.RemoveAll(old)
	}
	return nil
}
