package lbview

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/browsertest"
)

var rowRe = regexp.MustCompile(`<tr data-run="([^"]+)"`)

// rowOrder loads the page in headless Chromium with ?sort=QUERY (the page's
// hook clicks that column's header on load), dumps the DOM after its script
// ran, and returns the order of table's rows.
func rowOrder(t *testing.T, bin, page, table, query string) (order []string, th string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	url := "file://" + page
	if query != "" {
		url += "?sort=" + query
	}
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--user-data-dir="+t.TempDir(), "--dump-dom", url)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium --dump-dom: %v", err)
	}
	dom := string(out)
	start := strings.Index(dom, `id="`+table+`"`)
	if start < 0 {
		t.Fatalf("dumped DOM has no table %s:\n%.2000s", table, dom)
	}
	dom = dom[start:]
	dom = dom[:strings.Index(dom, "</table>")]
	for _, m := range rowRe.FindAllStringSubmatch(dom, -1) {
		order = append(order, m[1])
	}
	if m := regexp.MustCompile(`<th[^>]*aria-sort="(\w+)"[^>]*>([^<]*)`).FindStringSubmatch(dom); m != nil {
		th = m[2] + " " + m[1]
	}
	return order, th
}

// TestLeaderboardHTMLSortsInChromium clicks column headers of the rendered
// page in a real headless browser and reads the rows' order back.
func TestLeaderboardHTMLSortsInChromium(t *testing.T) {
	bin := browsertest.Chromium(t)
	page, err := HTML(sampleBoard(t))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "index.html")
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	// The chat table is h100-tp1 (TTFT 30 ms, 1000 tok/s) then h100-tp2
	// (20 ms, 1050.5 tok/s) in declaration order.
	cases := []struct {
		query, table, wantTH string
		want                 []string
	}{
		{"", "t-chat-4rps-0", "", []string{"h100-tp1", "h100-tp2"}},
		// One click sorts best first: a latency ascending, a throughput
		// descending; :asc / :desc ask for a direction.
		{"t-chat-4rps-0:6", "t-chat-4rps-0", "TTFT mean (ms) ascending", []string{"h100-tp2", "h100-tp1"}},
		{"t-chat-4rps-0:6:desc", "t-chat-4rps-0", "TTFT mean (ms) descending", []string{"h100-tp1", "h100-tp2"}},
		{"t-chat-4rps-0:12", "t-chat-4rps-0", "output tok/s descending", []string{"h100-tp2", "h100-tp1"}},
		{"t-chat-4rps-0:12:asc", "t-chat-4rps-0", "output tok/s ascending", []string{"h100-tp1", "h100-tp2"}},
		{"t-chat-4rps-0:4", "t-chat-4rps-0", "Config ascending", []string{"h100-tp1", "h100-tp2"}},
	}
	for _, c := range cases {
		got, th := rowOrder(t, bin, path, c.table, c.query)
		if strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("?sort=%s: rows %v, want %v", c.query, got, c.want)
		}
		if th != c.wantTH {
			t.Errorf("?sort=%s: sorted header %q, want %q", c.query, th, c.wantTH)
		}
	}
}
