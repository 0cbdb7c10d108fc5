package lbview

import (
	"bytes"
	"html/template"
	"strconv"

	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
)

// HTML renders the leaderboard as one self-contained static page
// (no external asset, no build step): the same tables as
// Markdown, where a click on any column header sorts that table
// by the column (again: the other way), disqualified and failed runs stay
// beneath, and computed values are underlined dotted with their formula on
// hover. The first click on a header sorts best first (lower latency,
// higher throughput), the next the other way. Every table scrolls inside
// its own box, so the page fits a phone's width. The query string
// ?sort=TABLE:COLUMN[:asc|:desc] clicks a header on load, twice when the
// first click gives the other direction (for links and for the
// headless-browser test).
func HTML(b leaderboard.Board) (string, error) {
	var out bytes.Buffer
	if err := pageTemplate.Execute(&out, pageData(b)); err != nil {
		return "", err
	}
	return out.String(), nil
}

type htmlCell struct {
	Text, Sort string
	Num        bool
	Formula    string // a computed value: its formula
	Rank       string
	// First is a header's first sort direction: best first
	// ("descending" for a figure where higher is better).
	First string
	// Wrap lets a long text cell wrap (a reason).
	Wrap bool
}

type htmlRow struct {
	Run    string
	Cells  []htmlCell
	Reason string
}

type htmlTable struct {
	ID, Caption, LoadWords, Key, Note string
	Headers                           []htmlCell
	Rows, Disqualified                []htmlRow
	DQHeaders                         []htmlCell
	// NoFigures are the failed and the pending runs (noFigureLists).
	NoFigures []htmlNoFigures
}

type htmlNoFigures struct {
	ID, Kind, Label, Note, Column string
	Rows                          []htmlRow
}

type htmlGroup struct {
	ID, Title, Workload string
	Tables              []htmlTable
	Capacity            []htmlRow
	CapacityHeaders     []htmlCell
	CapacityRule        string
}

type htmlPage struct {
	Provenance string
	Groups     []htmlGroup
	Legend     [][2]string
}

func pageData(b leaderboard.Board) htmlPage {
	p := htmlPage{Provenance: provenanceLine(b, func(s string) string { return s }), Legend: computedLegend}
	for _, g := range b.Groups {
		hg := htmlGroup{ID: g.ID, Title: g.Title, Workload: workloadWords(g.Workload)}
		if hg.Title == "" {
			hg.Title = g.ID
		}
		for ti, t := range g.Tables {
			ht := htmlTable{ID: "t-" + g.ID + "-" + strconv.Itoa(ti), LoadWords: t.Load.String(), Key: shortKey(t.Key), Note: leaderboard.LoadNote}
			if g.Sweep {
				ht.Caption = "At " + t.Load.Short()
			}
			ht.Headers = htmlHeaders()
			ht.DQHeaders = append(htmlHeaders(), htmlCell{Text: "Reason"})
			for _, r := range t.Rows {
				ht.Rows = append(ht.Rows, htmlRowOf(r, false))
			}
			for _, r := range t.Disqualified {
				hr := htmlRowOf(r, true)
				hr.Cells = append(hr.Cells, htmlCell{Text: r.Reason, Sort: r.Reason, Wrap: true})
				ht.Disqualified = append(ht.Disqualified, hr)
			}
			for _, l := range noFigureLists(t) {
				hl := htmlNoFigures{ID: ht.ID + "-" + l.Kind, Kind: l.Kind, Label: l.Label, Note: l.Note, Column: l.Column}
				for _, r := range l.Rows {
					hl.Rows = append(hl.Rows, htmlRow{Run: r.Run, Reason: r.Reason, Cells: []htmlCell{
						{Text: r.Candidate.ID}, {Text: r.Candidate.Model}, {Text: r.Candidate.Hardware}, {Text: strconv.Itoa(r.Candidate.TP)}, {Text: configWords(r.Candidate)}}})
				}
				ht.NoFigures = append(ht.NoFigures, hl)
			}
			hg.Tables = append(hg.Tables, ht)
		}
		if g.Sweep && g.KeepUp != nil {
			hg.CapacityRule = capacityRule(g.KeepUp)
			hg.CapacityHeaders = []htmlCell{{Text: "Candidate"}, {Text: "Model"}, {Text: "Hardware"}, {Text: "Config"}, {Text: "Highest load kept up with", Num: true, First: "descending"},
				{Text: "output tok/s there", Num: true, First: "descending"}, {Text: "responses/s there", Num: true, First: "descending"}, {Text: "Stopped keeping up"}}
			for _, c := range g.Capacity {
				kept, keptSort, tps, rps := htmlCell{Text: "none", Sort: "-1", Num: true}, "", htmlCell{Text: "–", Sort: "-1", Num: true}, htmlCell{Text: "–", Sort: "-1", Num: true}
				if c.Kept != nil {
					keptSort = strconv.FormatFloat(c.Kept.Rate+float64(c.Kept.Concurrency), 'g', -1, 64)
					kept = htmlCell{Text: c.Kept.Short(), Sort: keptSort, Num: true}
					tps = htmlCell{Text: fixed(c.OutputTokensPerS, 1), Sort: num(c.OutputTokensPerS), Num: true}
					rps = htmlCell{Text: fixed(c.ResponsesPerS, 3), Sort: num(c.ResponsesPerS), Num: true}
				}
				note := c.Note
				if note == "" {
					note = "kept up at every load"
				}
				hg.Capacity = append(hg.Capacity, htmlRow{Run: c.Candidate.ID, Cells: []htmlCell{
					{Text: c.Candidate.ID}, {Text: c.Candidate.Model}, {Text: c.Candidate.Hardware}, {Text: configWords(c.Candidate)}, kept, tps, rps, {Text: note, Wrap: true}}})
			}
		}
		p.Groups = append(p.Groups, hg)
	}
	return p
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func htmlHeaders() []htmlCell {
	h := []htmlCell{{Text: "Candidate"}, {Text: "Model"}, {Text: "Hardware"}, {Text: "TP", Num: true}, {Text: "Config"}, {Text: "GPUs", Num: true, Formula: leaderboard.FormulaGPUs}}
	for _, m := range leaderboard.Metrics {
		c := htmlCell{Text: metricHeader(m), Num: true}
		if m.HigherBetter {
			c.First = "descending"
		}
		h = append(h, c)
	}
	return append(h, htmlCell{Text: "served", Num: true, Formula: leaderboard.FormulaServedFraction, First: "descending"},
		htmlCell{Text: "out tok/req", Num: true, Formula: leaderboard.FormulaTokensPerReq})
}

func htmlRowOf(r leaderboard.Row, wouldBe bool) htmlRow {
	c, comp := r.Candidate, r.Result.Computed
	hr := htmlRow{Run: r.Run, Cells: []htmlCell{
		{Text: c.ID, Sort: c.ID}, {Text: c.Model, Sort: c.Model}, {Text: c.Hardware, Sort: c.Hardware},
		{Text: strconv.Itoa(c.TP), Sort: strconv.Itoa(c.TP), Num: true},
		{Text: configWords(c), Sort: configWords(c)},
		{Text: fixed(comp.GPUs.Value, 0), Sort: num(comp.GPUs.Value), Num: true, Formula: comp.GPUs.Formula},
	}}
	for i, m := range leaderboard.Metrics {
		cell := r.Cells[i]
		rank := "#" + strconv.Itoa(cell.Rank)
		if wouldBe {
			rank = "[" + rank + "]"
		}
		hr.Cells = append(hr.Cells, htmlCell{Text: fixed(cell.Value, m.Digits), Sort: num(cell.Value), Num: true, Rank: rank})
	}
	hr.Cells = append(hr.Cells,
		htmlCell{Text: servedWords(r.Result), Sort: num(comp.ServedFraction.Value), Num: true, Formula: comp.ServedFraction.Formula},
		htmlCell{Text: fixed(comp.OutputTokensPerServedRequest.Value, 1), Sort: num(comp.OutputTokensPerServedRequest.Value), Num: true, Formula: comp.OutputTokensPerServedRequest.Formula})
	return hr
}

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>BLIS leaderboard</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2em; color: #1f2328; }
@media (max-width: 40em) { body { margin: 0.75em; } }
.scroll { overflow-x: auto; max-width: 100%; margin: 0.5em 0 1em; }
table { border-collapse: collapse; font-size: 0.9em; }
th, td { border: 1px solid #d0d7de; padding: 0.25em 0.5em; white-space: nowrap; }
td.wrap { white-space: normal; min-width: 16em; max-width: 40em; }
code { overflow-wrap: anywhere; }
th { background: #f6f8fa; cursor: pointer; user-select: none; }
th[aria-sort="ascending"]::after { content: " ▲"; }
th[aria-sort="descending"]::after { content: " ▼"; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.rank { color: #57606a; font-size: 0.85em; margin-left: 0.3em; }
.computed { text-decoration: underline dotted; cursor: help; }
table.dq td, table.failed td, table.pending td { color: #57606a; }
.note { color: #57606a; font-size: 0.9em; }
</style>
</head>
<body>
<h1>BLIS leaderboard</h1>
<p>Simulated deployments compared on the same offered work, one table per comparability group. Rows are in declaration order until a column header is clicked; each metric cell shows its value and its rank among the group's qualified runs. There is no composite score. Values <span class="computed" title="computed by this project, not read from BLIS">underlined dotted</span> are computed by this project: hover for the formula.</p>
<p class="note">{{.Provenance}}</p>
{{range .Groups}}{{$g := .}}
<section id="g-{{.ID}}">
<h2>{{.Title}} <code>{{.ID}}</code></h2>
<p>Offered work: {{.Workload}}.</p>
{{range .Tables}}
{{if .Caption}}<h3>{{.Caption}}</h3>{{end}}
<p>Load: <span class="computed" title="the declared load, in words">{{.LoadWords}}</span>. Comparability key <code>{{.Key}}</code>.</p>
{{if .Rows}}<div class="scroll"><table class="board sortable" id="{{.ID}}">
<thead><tr>{{range $i, $h := .Headers}}<th data-col="{{$i}}" data-type="{{if $h.Num}}num{{else}}text{{end}}"{{if $h.First}} data-first="{{$h.First}}"{{end}}>{{if $h.Formula}}<span class="computed" title="{{$h.Formula}}">{{$h.Text}}</span>{{else}}{{$h.Text}}{{end}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr data-run="{{.Run}}">{{range .Cells}}<td{{if .Num}} class="num"{{end}} data-v="{{.Sort}}">{{if .Formula}}<span class="computed" title="{{.Formula}}">{{.Text}}</span>{{else}}{{.Text}}{{end}}{{if .Rank}}<span class="rank">{{.Rank}}</span>{{end}}</td>{{end}}</tr>
{{end}}</tbody>
</table></div>{{else}}<p>No qualified run.</p>{{end}}
<p class="note">{{.Note}}</p>
{{if .Disqualified}}<p><strong>Disqualified</strong>: did not serve every offered request, so its percentiles describe a smaller, easier job. Not ranked; the rank it would have taken in brackets.</p>
<div class="scroll"><table class="dq sortable" id="{{.ID}}-dq">
<thead><tr>{{range $i, $h := .DQHeaders}}<th data-col="{{$i}}" data-type="{{if $h.Num}}num{{else}}text{{end}}"{{if $h.First}} data-first="{{$h.First}}"{{end}}>{{if $h.Formula}}<span class="computed" title="{{$h.Formula}}">{{$h.Text}}</span>{{else}}{{$h.Text}}{{end}}</th>{{end}}</tr></thead>
<tbody>
{{range .Disqualified}}<tr data-run="{{.Run}}">{{range .Cells}}<td{{if .Num}} class="num"{{else if .Wrap}} class="wrap"{{end}} data-v="{{.Sort}}">{{if .Formula}}<span class="computed" title="{{.Formula}}">{{.Text}}</span>{{else}}{{.Text}}{{end}}{{if .Rank}}<span class="rank">{{.Rank}}</span>{{end}}</td>{{end}}</tr>
{{end}}</tbody>
</table></div>{{end}}
{{range .NoFigures}}<p><strong>{{.Label}}</strong> {{.Note}}:</p>
<div class="scroll"><table class="{{.Kind}} sortable" id="{{.ID}}">
<thead><tr><th data-col="0" data-type="text">Candidate</th><th data-col="1" data-type="text">Model</th><th data-col="2" data-type="text">Hardware</th><th data-col="3" data-type="num">TP</th><th data-col="4" data-type="text">Config</th><th data-col="5" data-type="text">{{.Column}}</th></tr></thead>
<tbody>
{{range .Rows}}<tr data-run="{{.Run}}">{{range .Cells}}<td data-v="{{.Text}}">{{.Text}}</td>{{end}}<td class="wrap" data-v="{{.Reason}}">{{.Reason}}</td></tr>
{{end}}</tbody>
</table></div>{{end}}
{{end}}
{{if .Capacity}}<h3>Capacity</h3>
<p>{{.CapacityRule}}</p>
<div class="scroll"><table class="capacity sortable" id="t-{{.ID}}-capacity">
<thead><tr>{{range $i, $h := .CapacityHeaders}}<th data-col="{{$i}}" data-type="{{if $h.Num}}num{{else}}text{{end}}"{{if $h.First}} data-first="{{$h.First}}"{{end}}>{{$h.Text}}</th>{{end}}</tr></thead>
<tbody>
{{range .Capacity}}<tr data-run="{{.Run}}">{{range .Cells}}<td{{if .Num}} class="num"{{else if .Wrap}} class="wrap"{{end}} data-v="{{if .Sort}}{{.Sort}}{{else}}{{.Text}}{{end}}">{{.Text}}</td>{{end}}</tr>
{{end}}</tbody>
</table></div>{{end}}
</section>
{{end}}
<hr>
<p>Computed by this project, not read from BLIS:</p>
<ul>{{range .Legend}}<li><span class="computed" title="{{index . 1}}">{{index . 0}}</span> = {{index . 1}}</li>{{end}}</ul>
<script>
(function () {
  function sortBy(th) {
    var table = th.closest("table"), tbody = table.tBodies[0];
    var col = Number(th.dataset.col), num = th.dataset.type === "num";
    // The first click sorts best first (data-first); the next the other way.
    var cur = th.getAttribute("aria-sort");
    var dir = cur ? (cur === "ascending" ? "descending" : "ascending") : (th.dataset.first || "ascending");
    table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", dir);
    var rows = Array.prototype.slice.call(tbody.rows);
    rows.forEach(function (r, i) { r.dataset.pos = i; });
    rows.sort(function (a, b) {
      var x = a.cells[col].dataset.v, y = b.cells[col].dataset.v, c;
      if (num) { c = Number(x) - Number(y); } else { c = x < y ? -1 : x > y ? 1 : 0; }
      if (dir === "descending") { c = -c; }
      return c || (Number(a.dataset.pos) - Number(b.dataset.pos));
    });
    rows.forEach(function (r) { tbody.appendChild(r); });
  }
  document.querySelectorAll("table.sortable th").forEach(function (th) {
    th.addEventListener("click", function () { sortBy(th); });
  });
  var q = new URLSearchParams(location.search).get("sort");
  if (q) {
    var p = q.split(":"), t = document.getElementById(p[0]);
    var th = t && t.querySelector('th[data-col="' + Number(p[1]) + '"]');
    if (th) {
      th.click();
      var want = {asc: "ascending", desc: "descending"}[p[2]];
      if (want && th.getAttribute("aria-sort") !== want) { th.click(); }
    }
  }
})();
</script>
</body>
</html>
`))

// Leaderboard file names written by Files.
const (
	MarkdownFile = "README.md"
	HTMLFile     = "index.html"
)

// Files renders both outputs, by file name.
func Files(b leaderboard.Board) (map[string][]byte, error) {
	page, err := HTML(b)
	if err != nil {
		return nil, err
	}
	return map[string][]byte{MarkdownFile: []byte(Markdown(b)), HTMLFile: []byte(page)}, nil
}
