package main

import (
	"bufio"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// envCatalog reads deploy/leaderboard.env: each NAME=default line, in order.
func envCatalog(t *testing.T) (names []string, defaults map[string]string) {
	t.Helper()
	f, err := os.Open("../../deploy/leaderboard.env")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	defaults = map[string]string{}
	line := regexp.MustCompile(`^([A-Z][A-Z0-9_]*)=(.*)$`)
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		text := sc.Text()
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		m := line.FindStringSubmatch(text)
		if m == nil {
			t.Fatalf("deploy/leaderboard.env:%d: %q is neither a comment nor NAME=value", n, text)
		}
		if _, dup := defaults[m[1]]; dup {
			t.Errorf("deploy/leaderboard.env:%d: %s is listed twice", n, m[1])
		}
		if strings.ContainsAny(m[2], `"'$ `) {
			t.Errorf("deploy/leaderboard.env:%d: %s=%s: a value is written plain (no quotes, spaces or $), as --env-file takes it", n, m[1], m[2])
		}
		names = append(names, m[1])
		defaults[m[1]] = m[2]
	}
	return names, defaults
}

// The environment catalog lists exactly the variables the entry script
// and the Go code read, and each default is the script's.
func TestLeaderboardEnvCatalog(t *testing.T) {
	t.Parallel()
	names, defaults := envCatalog(t)
	script, err := os.ReadFile("../../deploy/leaderboard-entry.sh")
	if err != nil {
		t.Fatal(err)
	}
	read := map[string]string{} // variable → who reads it
	scriptDefaults := map[string]string{}
	for _, m := range regexp.MustCompile(`\$\{(LEADERBOARD_[A-Z0-9_]+)(:-([^}]*))?\}`).FindAllStringSubmatch(string(script), -1) {
		read[m[1]] = "deploy/leaderboard-entry.sh"
		scriptDefaults[m[1]] = m[3]
	}
	literal := regexp.MustCompile(`"(LEADERBOARD_[A-Z0-9_]+)"`)
	for _, root := range []string{"..", "../../internal"} {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return err
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, m := range literal.FindAllStringSubmatch(string(src), -1) {
				read[m[1]] = p
			}
			return nil
		})
	}
	if len(read) < 2 {
		t.Fatalf("found only %v: the scan is broken", read)
	}
	for _, v := range slices.Sorted(maps.Keys(read)) {
		if _, ok := defaults[v]; !ok {
			t.Errorf("%s (read by %s) is not in deploy/leaderboard.env", v, read[v])
		}
	}
	app := defaults["LEADERBOARD_APP"]
	for _, v := range names {
		if _, ok := read[v]; !ok {
			t.Errorf("deploy/leaderboard.env lists %s, which nothing reads", v)
			continue
		}
		want, ok := scriptDefaults[v]
		if !ok {
			continue // read by the Go code only
		}
		if want = strings.ReplaceAll(want, "$app", app); defaults[v] != want {
			t.Errorf("deploy/leaderboard.env: %s=%s; the entry script's default is %q", v, defaults[v], want)
		}
	}
}
