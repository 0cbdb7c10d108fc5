package main

import (
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/browsertest"
	"github.com/inference-sim/accuracy-dashboard/internal/dashboard"
)

// overflowJS lists what is wider than the page shows: the page itself
// scrolling sideways, a table, a scroll box or a chart whose content is
// wider than its box (scrollWidth over clientWidth, hidden behind a scroll
// bar), or whose box reaches past the viewport. One line each; none when
// the page is whole.
const overflowJS = `(() => {
  const vw = document.documentElement.clientWidth, out = [];
  const name = el => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
    (el.closest("[id]") && !el.id ? " in #" + el.closest("[id]").id : "") + (el.className && typeof el.className === "string" ? "." + el.className.split(" ").join(".") : "");
  if (document.documentElement.scrollWidth > vw + 1) {
    out.push("the page is " + document.documentElement.scrollWidth + " px wide in a " + vw + " px viewport");
  }
  document.querySelectorAll("main table, main .scroll, main figure.chart, main figure.chart svg").forEach(el => {
    if (el.scrollWidth > el.clientWidth + 1) {
      out.push(name(el) + ": content " + el.scrollWidth + " px wide in a " + el.clientWidth + " px box");
    }
    const r = el.getBoundingClientRect();
    if (r.right > vw + 1 || r.left < -1) {
      out.push(name(el) + ": spans " + Math.round(r.left) + " to " + Math.round(r.right) + " px of a " + vw + " px viewport");
    }
  });
  return out;
})()`

// Every page of the example site is whole at a phone's width (390 px) and
// a laptop's (1 280 px): no table, scroll box or chart is wider than the
// viewport or hides content behind a scroll bar, including the comparison
// of the two snapshots the page draws.
func TestExampleSiteFitsTheViewport(t *testing.T) {
	t.Parallel()
	bin := browsertest.Chromium(t)
	root, err := filepath.Abs(filepath.Join(exampleDashboard, "site"))
	if err != nil {
		t.Fatal(err)
	}
	var pages []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".html") {
			pages = append(pages, "file://"+p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	snaps, _, err := dashboard.Load(os.DirFS(exampleDashboard))
	if err != nil {
		t.Fatal(err)
	}
	compare := "file://" + filepath.Join(root, "index.html") + "?" + url.Values{"a": {snaps[1].ID}, "b": {snaps[0].ID}}.Encode()
	pages = append(pages, compare)
	for _, width := range []int{390, 1280} {
		tab := browsertest.Open(t, bin, 1280, 900)
		if err := tab.Viewport(width, 900); err != nil {
			t.Fatal(err)
		}
		for _, page := range pages {
			ready := "main"
			if page == compare {
				ready = "#comparison[data-ready]"
			}
			if err := tab.Load(page, ready); err != nil {
				t.Fatal(err)
			}
			bad, err := browsertest.Eval[[]string](tab, overflowJS)
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range bad {
				t.Errorf("%s at %d px: %s", strings.TrimPrefix(page, "file://"+root+"/"), width, b)
			}
		}
		if errs := tab.Errors(); len(errs) > 0 {
			t.Errorf("console errors at %d px: %v", width, errs)
		}
	}
}
