package render

import (
	"crypto/sha256"
	"encoding/base64"
	"regexp"
	"strings"
)

// inlineElement matches an inline <script> or <style> element (no
// attributes) and its content.
var inlineElement = regexp.MustCompile(`(?s)<(script|style)>(.*?)</(?:script|style)>`)

// PageCSP is the Content-Security-Policy of a page the project serves
// (the leaderboard server's): it allows only the page's own inline
// scripts and styles, each by the SHA-256 of its content, requests to the
// page's own origin (the form's fetch), and no framing (frame-ancestors
// 'none'); anything injected into the page, an element or an attribute,
// does not run.
func PageCSP(page string) string {
	scripts, styles := inlineHashes([]byte(page))
	return "default-src 'none'; script-src " + orNone(scripts) + "; style-src " + orNone(styles) +
		"; connect-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
}

// siteCSP is the same policy for a page of the static site, which GitHub
// Pages serves without headers of ours: carried in a <meta> element, it
// also allows the site's own files (its stylesheet, script and data
// scripts, 'self'), and leaves out frame-ancestors, which browsers ignore
// in a <meta> element (saying so in the console).
func siteCSP(page []byte) string {
	scripts, styles := inlineHashes(page)
	return "default-src 'none'; script-src " + strings.Join(append([]string{"'self'"}, scripts...), " ") +
		"; style-src " + strings.Join(append([]string{"'self'"}, styles...), " ") +
		"; connect-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'"
}

// inlineHashes are the CSP sources of page's inline scripts and styles.
func inlineHashes(page []byte) (scripts, styles []string) {
	for _, m := range inlineElement.FindAllSubmatch(page, -1) {
		sum := sha256.Sum256(m[2])
		src := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
		if string(m[1]) == "script" {
			scripts = append(scripts, src)
		} else {
			styles = append(styles, src)
		}
	}
	return scripts, styles
}

func orNone(srcs []string) string {
	if len(srcs) == 0 {
		return "'none'"
	}
	return strings.Join(srcs, " ")
}
