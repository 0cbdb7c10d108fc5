package ident

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

func TestCommit(t *testing.T) {
	t.Parallel()
	good := strings.Repeat("ab12", 10)
	if !IsCommit(good) || CheckCommit(good) != nil {
		t.Errorf("%s refused", good)
	}
	for bad, why := range map[string]string{
		"":                                "empty",
		"v1.2.0":                          "not a hexadecimal",
		"abc123":                          "6 hex digits",
		strings.ToUpper(good):             "lowercase",
		good + "0":                        "41 hex digits",
		strings.Repeat("g", 40):           "not a hexadecimal",
		"ab12ab12ab12ab12ab12ab12ab12ab1": "31 hex digits",
	} {
		err := CheckCommit(bad)
		if IsCommit(bad) || err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("CheckCommit(%q) = %v, want an error saying %q", bad, err, why)
		}
	}
	if Short(good) != good[:12] || Short("abc") != "abc" {
		t.Errorf("Short: %q, %q", Short(good), Short("abc"))
	}
}

func TestParseRepo(t *testing.T) {
	t.Parallel()
	for _, good := range []string{"octo/sim", "inference-sim/inference-sim", "a/b.c_d-e", "A1/.github", "octocat_acme/dot.files"} {
		r, err := ParseRepo(good)
		if err != nil || r.String() != good || !IsRepo(good) {
			t.Errorf("ParseRepo(%q) = %+v, %v", good, r, err)
		}
	}
	for _, bad := range []string{"", "octo", "octo/", "/sim", "octo/sim/extra", "-octo/sim", "octo/si m", "octo/sim\n",
		strings.Repeat("o", 40) + "/sim", "octo/" + strings.Repeat("n", 101), "https://github.com/octo/sim"} {
		if _, err := ParseRepo(bad); err == nil || !strings.Contains(err.Error(), "not owner/name") || IsRepo(bad) {
			t.Errorf("ParseRepo(%q) = %v, want refused", bad, err)
		}
	}
	if a, b := (Repo{"Octo", "Sim"}), (Repo{"octo", "sim"}); !a.Same(b) || a == b || a.Same(Repo{"octo", "sim2"}) {
		t.Error("Same compares names case-insensitively, and only names")
	}
}

func TestTags(t *testing.T) {
	t.Parallel()
	for tag, stable := range map[string]bool{"v1.2.0": true, "v0.7.15": true, "v10.0.1": true, "v1.2.0-rc.1": false, "v2.0.0-beta": false} {
		if err := CheckTag(tag); err != nil || IsStableRelease(tag) != stable {
			t.Errorf("%s: CheckTag %v, stable %v; want a release tag, stable %v", tag, err, IsStableRelease(tag), stable)
		}
	}
	for _, bad := range []string{"", "1.2.0", "v1.2", "v1", "v1.2.0+build", "v01.2.0", "main", "v1.2.0-", "v1.2.0-rc..1", "V1.2.0"} {
		if CheckTag(bad) == nil || IsStableRelease(bad) {
			t.Errorf("%q accepted as a release tag", bad)
		}
	}
	ordered := []string{"v0.9.0", "v0.9.9", "v0.10.0", "v1.0.0-alpha", "v1.0.0-alpha.1", "v1.0.0-alpha.beta", "v1.0.0-beta.2", "v1.0.0-beta.11", "v1.0.0-rc.1", "v1.0.0", "v1.0.1", "v1.10.0", "v2.0.0"}
	for i := range ordered {
		for j := range ordered {
			if got, want := CompareTags(ordered[i], ordered[j]), cmp.Compare(i, j); got != want {
				t.Errorf("CompareTags(%s, %s) = %d, want %d", ordered[i], ordered[j], got, want)
			}
		}
	}
	if CompareTags("main", "v0.0.1") != -1 {
		t.Error("a tag that is not a version does not sort before one that is")
	}
}

func TestReleaseTags(t *testing.T) {
	t.Parallel()
	got := ReleaseTags([]string{"v0.7.9", " v0.7.15\n", "v0.10.0", "latest", "v1.0.0-rc1", "db-dump/2026-09-28", "v0.7.10"})
	want := []string{"v0.10.0", "v0.7.15", "v0.7.10", "v0.7.9"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("ReleaseTags = %v, want %v", got, want)
	}
	if got := NewestRelease([]string{"v0.7.9", "v0.7.15", "v0.8.0-rc1", "nightly", "v0.7.10"}); got != "v0.7.15" {
		t.Errorf("NewestRelease = %q", got)
	}
	if got := NewestRelease([]string{"main"}); got != "" {
		t.Errorf("NewestRelease without releases = %q", got)
	}
}

// TestDumpTagDate: weekly dump tags and their dates; anything else is not one.
func TestDumpTagDate(t *testing.T) {
	for tag, want := range map[string]string{"db-dump/2026-11-24": "2026-11-24", "db-dump/2026-02-30": "", "db-dump/latest": "", "v1.0.0": "", " db-dump/2026-11-24": ""} {
		if got, ok := DumpTagDate(tag); got != want || ok != (want != "") {
			t.Errorf("DumpTagDate(%q) = %q, %v; want %q", tag, got, ok, want)
		}
	}
}

// TestDigest: a content digest is "sha256:" and the sum's lowercase hex;
// its short form is the first ShortLen hex digits, the prefix dropped.
func TestDigest(t *testing.T) {
	t.Parallel()
	sum := sha256.Sum256(nil)
	const empty = "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	if got := Digest(sum[:]); got != empty {
		t.Errorf("Digest of the empty input = %s, want %s", got, empty)
	}
	for in, want := range map[string]string{empty: "e3b0c44298fc", "sha256:abc": "abc", "e3b0c44298fc1c14": "e3b0c44298fc"} {
		if got := ShortDigest(in); got != want {
			t.Errorf("ShortDigest(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFilesDigestIsTheDirectoryDigest(t *testing.T) {
	t.Parallel()
	// Two files, given out of order: hashed in path order as
	// path NUL size NUL bytes.
	files := map[string][]byte{"models/b/config.json": []byte("{}"), "models/a/config.json": []byte(`{"x":1}`)}
	h := sha256.New()
	h.Write([]byte("models/a/config.json\x007\x00{\"x\":1}"))
	h.Write([]byte("models/b/config.json\x002\x00{}"))
	if got, want := FilesDigest(files), "sha256:"+hex.EncodeToString(h.Sum(nil)); got != want {
		t.Errorf("FilesDigest = %s, want %s", got, want)
	}
	files["models/b/config.json"] = []byte("{ }")
	if FilesDigest(files) == "sha256:"+hex.EncodeToString(h.Sum(nil)) {
		t.Error("a changed file keeps the digest")
	}
}
