package textcut

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPrefixAndCutNeverSplitARune(t *testing.T) {
	t.Parallel()
	s := strings.Repeat("aé€😀", 50) // 1-, 2-, 3- and 4-byte runes
	for n := -1; n <= len(s)+1; n++ {
		p := Prefix(s, n)
		if len(p) > max(n, 0) || !utf8.ValidString(p) || !strings.HasPrefix(s, p) {
			t.Fatalf("Prefix(s, %d) = %d bytes, valid %v", n, len(p), utf8.ValidString(p))
		}
		// The longest: one more rune would not fit.
		if len(p) < len(s) && n >= 0 {
			_, size := utf8.DecodeRuneInString(s[len(p):])
			if len(p)+size <= n {
				t.Fatalf("Prefix(s, %d) = %d bytes, a rune of %d more fits", n, len(p), size)
			}
		}
		if n >= len(" …") {
			c := Cut(s, n)
			if len(c) > n || !utf8.ValidString(c) || (len(s) > n && !strings.HasSuffix(c, " …")) {
				t.Fatalf("Cut(s, %d) = %q", n, c)
			}
		}
	}
	if Cut("short", 10) != "short" || Prefix("short", 10) != "short" {
		t.Error("a string that fits was changed")
	}
}
