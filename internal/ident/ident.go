// Package ident holds the one definition of the identifiers the project
// passes around: a commit id (40 lowercase hex digits), its short form, a
// content digest ("sha256:" and hex digits), a GitHub repository's
// "owner/name", release tags and InferenceX weekly dump tags. Every check of
// these goes through here.
package ident

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/semver"
)

var (
	commitRe = regexp.MustCompile(`^[0-9a-f]{40}$`)
	hexRe    = regexp.MustCompile(`^[0-9a-fA-F]+$`)
	// repoRe is what GitHub allows in "owner/name": an account login
	// (letters, digits, single '-', at most 39) and a repository name
	// (letters, digits, '.', '_', '-').
	repoRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,38}/[A-Za-z0-9._-]{1,100}$`)
)

// IsCommit reports whether s is a full commit id: 40 lowercase hex digits.
func IsCommit(s string) bool { return commitRe.MatchString(s) }

// CheckCommit is IsCommit with an error saying what is wrong.
func CheckCommit(commit string) error {
	switch {
	case commit == "":
		return errors.New("commit is empty")
	case !hexRe.MatchString(commit):
		return fmt.Errorf("%q is not a hexadecimal commit id", commit)
	case len(commit) != 40:
		return fmt.Errorf("%q has %d hex digits; want the full 40-digit commit id", commit, len(commit))
	case !commitRe.MatchString(commit):
		return fmt.Errorf("%q must be lowercase", commit)
	}
	return nil
}

// ShortLen is how many characters of a commit id or digest are shown.
const ShortLen = 12

// Short is the first ShortLen characters of a commit id (or any longer
// string), the whole of a shorter one.
func Short(commit string) string {
	if len(commit) > ShortLen {
		return commit[:ShortLen]
	}
	return commit
}

// DigestPrefix begins every content digest the project records: the
// algorithm, SHA-256.
const DigestPrefix = "sha256:"

// Digest is the project's form of a content digest of SHA-256 sum sum:
// DigestPrefix and the sum's lowercase hex digits.
func Digest(sum []byte) string { return DigestPrefix + hex.EncodeToString(sum) }

// ShortDigest is Short of a digest's hex digits, its DigestPrefix dropped.
func ShortDigest(digest string) string { return Short(strings.TrimPrefix(digest, DigestPrefix)) }

// MaxTagBytes bounds a release tag: git refuses a ref name component longer
// than most file systems' 255-byte name limit, and no release needs more.
const MaxTagBytes = 255

// Repo names a GitHub repository: its owner (a user or organization login)
// and its name. It is the one repository type of the project: the GitHub
// adapter takes and returns it, and the bot and the Action pass it around.
type Repo struct {
	Owner, Name string
}

// String returns "owner/name".
func (r Repo) String() string { return r.Owner + "/" + r.Name }

// Same reports whether two repositories are the same (GitHub compares
// names case-insensitively).
func (r Repo) Same(o Repo) bool {
	return strings.EqualFold(r.Owner, o.Owner) && strings.EqualFold(r.Name, o.Name)
}

// ParseRepo parses "owner/name" as GitHub spells repositories: an account
// login (a letter or digit, then letters, digits, '-' or '_', at most 39)
// and a repository name (letters, digits, '.', '_', '-', at most 100). It
// is the one parser of a repository name; the error names s.
func ParseRepo(s string) (Repo, error) {
	if !IsRepo(s) {
		return Repo{}, fmt.Errorf("repository %q is not owner/name", s)
	}
	owner, name, _ := strings.Cut(s, "/")
	return Repo{Owner: owner, Name: name}, nil
}

// IsRepo reports whether s is "owner/name" as ParseRepo accepts it.
func IsRepo(s string) bool { return repoRe.MatchString(s) }

// CheckTag reports whether tag is a release tag, vMAJOR.MINOR.PATCH with an
// optional pre-release (semantic versioning, golang.org/x/mod/semver; no
// build metadata, no leading zeros), with an error saying why not.
func CheckTag(tag string) error {
	if tag == "" {
		return errors.New("tag is empty")
	}
	if len(tag) > MaxTagBytes {
		return fmt.Errorf("tag of %d bytes is not a release tag (at most %d)", len(tag), MaxTagBytes)
	}
	if !semver.IsValid(tag) || semver.Canonical(tag) != tag {
		return fmt.Errorf("%q is not a release tag (want vMAJOR.MINOR.PATCH, e.g. v1.2.0); a branch or moving tag cannot be pinned because its figures could not be regenerated", tag)
	}
	return nil
}

// IsStableRelease reports whether tag is a release tag without a
// pre-release: vMAJOR.MINOR.PATCH.
func IsStableRelease(tag string) bool {
	return CheckTag(tag) == nil && semver.Prerelease(tag) == ""
}

// CompareTags orders release tags by semantic version: -1, 0 or +1.
func CompareTags(a, b string) int { return semver.Compare(a, b) }

// ReleaseTags returns the stable release tags (IsStableRelease) among tags,
// each trimmed of white space, newest version first.
func ReleaseTags(tags []string) []string {
	var rel []string
	for _, t := range tags {
		if t = strings.TrimSpace(t); IsStableRelease(t) {
			rel = append(rel, t)
		}
	}
	slices.SortFunc(rel, func(a, b string) int { return CompareTags(b, a) })
	return rel
}

// NewestRelease returns the newest stable release among tags (pre-releases
// and other tags ignored), "" for none.
func NewestRelease(tags []string) string {
	rel := ReleaseTags(tags)
	if len(rel) == 0 {
		return ""
	}
	return rel[0]
}

// DumpTagPrefix starts the release tags of InferenceX's weekly database
// dumps, db-dump/YYYY-MM-DD.
const DumpTagPrefix = "db-dump/"

var dumpTagRe = regexp.MustCompile(`^db-dump/(\d{4}-\d{2}-\d{2})$`)

// DumpTagDate returns the date of a weekly dump tag db-dump/YYYY-MM-DD (a
// real date), ok false for any other string.
func DumpTagDate(tag string) (date string, ok bool) {
	m := dumpTagRe.FindStringSubmatch(tag)
	if m == nil {
		return "", false
	}
	if _, err := time.Parse("2006-01-02", m[1]); err != nil {
		return "", false
	}
	return m[1], true
}

// DirHash is the content digest of a data directory (a catalog, a ledger)
// as the project records it: SHA-256 over each regular file, in path order,
// of its slash path relative to the directory, a NUL, its size in decimal,
// a NUL and its bytes. harness.DigestFS hashes a directory on disk with it
// and the bot a directory it read through the GitHub API, so that both give
// the digest results record.
type DirHash struct{ h hash.Hash }

// NewDirHash starts a directory digest.
func NewDirHash() *DirHash { return &DirHash{h: sha256.New()} }

// Add hashes one file; files must be added in path order (sort.Strings).
func (d *DirHash) Add(path string, size int64, r io.Reader) error {
	fmt.Fprintf(d.h, "%s\x00%d\x00", path, size)
	_, err := io.Copy(d.h, r)
	return err
}

// Sum is the digest of the files added: "sha256:" and the sum's hex digits.
func (d *DirHash) Sum() string { return Digest(d.h.Sum(nil)) }

// FilesDigest is DirHash over files (slash path relative to the directory →
// content), taken in path order.
func FilesDigest(files map[string][]byte) string {
	d := NewDirHash()
	for _, p := range slices.Sorted(maps.Keys(files)) {
		_ = d.Add(p, int64(len(files[p])), bytes.NewReader(files[p])) // a bytes.Reader and a hash never fail
	}
	return d.Sum()
}
