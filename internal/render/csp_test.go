package render

import (
	"crypto/sha256"
	"encoding/base64"
	"regexp"
	"strings"
	"testing"
)

// TestSiteCSP: every page of the static site carries its
// Content-Security-Policy in a <meta> element at the top of its head,
// allowing the site's own files and each of the page's inline scripts by
// hash, nothing inline beyond them and no other origin.
func TestSiteCSP(t *testing.T) {
	t.Parallel()
	files, err := Site(siteFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	meta := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`)
	pages := 0
	for path, raw := range files {
		if !strings.HasSuffix(path, ".html") {
			continue
		}
		pages++
		page := string(raw)
		m := meta.FindStringSubmatch(page)
		if m == nil || strings.Index(page, m[0]) > strings.Index(page, "<title>") {
			t.Errorf("%s: no Content-Security-Policy <meta> before its title", path)
			continue
		}
		csp := m[1]
		for _, want := range []string{"default-src 'none'", "script-src 'self'", "base-uri 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s: the policy %q lacks %q", path, csp, want)
			}
		}
		if strings.Contains(csp, "unsafe") || strings.Contains(csp, "http") || strings.Contains(csp, "*") {
			t.Errorf("%s: the policy %q allows more than the site's own", path, csp)
		}
		for _, s := range inlineElement.FindAllStringSubmatch(page, -1) {
			sum := sha256.Sum256([]byte(s[2]))
			if !strings.Contains(csp, "'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'") {
				t.Errorf("%s: the policy does not allow its own inline <%s>", path, s[1])
			}
		}
	}
	if pages == 0 {
		t.Fatal("the site has no page")
	}
}
