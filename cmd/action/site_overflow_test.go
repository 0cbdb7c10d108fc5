package main

import (
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/browsertest"
	"github.com/inference-sim/accuracy-dashboard/internal/dashboard"
	"github.com/inference-sim/accuracy-dashboard/internal/dashboard/dashboardtest"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
	"github.com/inference-sim/accuracy-dashboard/internal/site"
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

// cardsJS lists, on a phone (tables shown as cards), the cells whose value
// dropped under their column's name instead of standing beside it: its
// box starts at the cell's left edge. One line each.
const cardsJS = `(() => {
  const out = [];
  document.querySelectorAll("main table.cards tbody td[data-label]").forEach(td => {
    const r = document.createRange();
    r.selectNodeContents(td); // the value, not the name (a ::before)
    const lines = Array.from(r.getClientRects()).filter(b => b.width > 0);
    if (lines.length === 0) { return; } // empty, or not shown
    const left = td.getBoundingClientRect().left;
    if (lines.some(b => b.left - left < 8)) {
      out.push((td.closest("table").id || "a table") + ": " + td.dataset.label + " " + JSON.stringify(td.textContent.trim().slice(0, 60)) + " dropped under its name");
    }
  });
  return out;
})()`

// Every page of the example site is whole at a phone's width (390 px) and
// a laptop's (1 280 px): no table, scroll box or chart is wider than the
// viewport or hides content behind a scroll bar, no card's value drops
// under its name (cardsJS), including the comparison of the two snapshots
// the page draws.
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
			pages = append(pages, strings.TrimPrefix(p, root+"/"))
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
	pages = append(pages, "index.html?"+url.Values{"a": {snaps[1].ID}, "b": {snaps[0].ID}}.Encode())
	checkFits(t, bin, root, pages)
}

// A year of nightlies (dashboardtest.Nightlies: 365 daily snapshots of
// 171 points, a release every 30th) makes a site whose every kind of page
// is whole at 390 and 1 280 px: the Overview, the comparison of the
// oldest and the newest snapshot, the History in each of its ranges (last
// 30, last 90, all), the newest and the oldest snapshot's pages and every
// sweep page.
func TestYearOfNightliesSiteFitsTheViewport(t *testing.T) {
	t.Parallel()
	bin := browsertest.Chromium(t)
	dash, root := t.TempDir(), filepath.Join(t.TempDir(), "site")
	ids := dashboardtest.Nightlies(t, dash, 365, 171)
	if _, err := site.BuildDir(dash, root, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	pages := []string{"index.html", "history.html", "history.html#range-90", "history.html#range-all",
		render.SiteSnapshotPath(ids[0]), render.SiteSnapshotPath(ids[len(ids)-1]),
		"index.html?" + url.Values{"a": {ids[len(ids)-1]}, "b": {ids[0]}}.Encode()}
	sweeps, err := filepath.Glob(filepath.Join(root, "sweeps", "*.html"))
	if err != nil || len(sweeps) == 0 {
		t.Fatalf("no sweep page (%v)", err)
	}
	for _, p := range sweeps {
		pages = append(pages, "sweeps/"+filepath.Base(p))
	}
	checkFits(t, bin, root, pages)

	// The History's table follows the range shown: 30 rows, 90, then all
	// 365 (a phone showed a year as 365 cards under the last 30's charts).
	tab := browsertest.Open(t, bin, 390, 900)
	if err := tab.Load("file://"+filepath.Join(root, "history.html"), "main"); err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct {
		id      string
		rows    int
		caption string
	}{{"range-30", 30, "The last 30 snapshots, newest first"}, {"range-90", 90, "The last 90 snapshots, newest first"}, {"range-all", 365, "Every snapshot, newest first"}} {
		got, err := browsertest.Eval[[]string](tab, `(() => { document.getElementById("`+r.id+`").checked = true;
  const rows = Array.from(document.querySelectorAll("#history-table tbody tr")).filter(tr => tr.getBoundingClientRect().height > 0);
  return [String(rows.length), document.querySelector("#history-table caption").innerText.trim()]; })()`)
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{strconv.Itoa(r.rows), r.caption}; !slices.Equal(got, want) {
			t.Errorf("History with %s: rows shown and caption %q, want %q", r.id, got, want)
		}
	}
}

// checkFits loads each page (a path under the site's root, with its query;
// "#range-…" on the History checks that range's radio button first) at
// 390 and 1 280 px and fails naming whatever overflowJS finds, and any
// console error. The comparison (a query of a and b) is checked once the
// page has drawn it.
func checkFits(t *testing.T, bin, root string, pages []string) {
	t.Helper()
	for _, width := range []int{390, 1280} {
		tab := browsertest.Open(t, bin, 1280, 900)
		if err := tab.Viewport(width, 900); err != nil {
			t.Fatal(err)
		}
		for _, page := range pages {
			path, rangeID, _ := strings.Cut(page, "#")
			ready := "main"
			if strings.Contains(path, "?a=") {
				ready = "#comparison[data-ready]"
			}
			if err := tab.Load("file://"+filepath.Join(root, path), ready); err != nil {
				t.Fatal(err)
			}
			if rangeID != "" {
				// Its charts show, the others' are hidden.
				shown, err := browsertest.Eval[bool](tab, `(() => { document.getElementById("`+rangeID+`").checked = true;
  return document.querySelector(".`+rangeID+` svg").getBoundingClientRect().width > 0; })()`)
				if err != nil || !shown {
					t.Fatalf("%s at %d px: the range's chart is not shown (%v)", page, width, err)
				}
			}
			bad, err := browsertest.Eval[[]string](tab, overflowJS)
			if err != nil {
				t.Fatal(err)
			}
			if width < 600 {
				dropped, err := browsertest.Eval[[]string](tab, cardsJS)
				if err != nil {
					t.Fatal(err)
				}
				bad = append(bad, dropped...)
			}
			for _, b := range bad {
				t.Errorf("%s at %d px: %s", page, width, b)
			}
		}
		if errs := tab.Errors(); len(errs) > 0 {
			t.Errorf("console errors at %d px: %v", width, errs)
		}
	}
}
