package render

import (
	"errors"
	"html/template"
)

// siteTemplates are the site's pages (the Overview's section on the
// simulator's warnings is siteWarningsTemplate, the reading of its headline
// siteReadingTemplate, its Why section siteWhyTemplate). html/template escapes every value
// for its context (text, attribute, URL): model names, unit ids, reasons
// and provenance come from result files.
var siteTemplates = template.Must(template.Must(template.New("site").Funcs(template.FuncMap{
	"dict": func(kv ...any) (map[string]any, error) {
		if len(kv)%2 != 0 {
			return nil, errors.New("dict: odd arguments")
		}
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			k, ok := kv[i].(string)
			if !ok {
				return nil, errors.New("dict: a key is not a string")
			}
			m[k] = kv[i+1]
		}
		return m, nil
	},
}).Parse(`
{{define "head"}}<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Page.Title}} · BLIS simulator accuracy</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="{{.Page.Root}}assets/site.css">
</head>
<body>
<header class="site"><div class="inner">
<a class="brand" href="{{.Page.Root}}index.html">BLIS simulator accuracy</a>
<nav class="site" aria-label="Site">
<a href="{{.Page.Root}}index.html"{{if eq .Page.Nav "overview"}} aria-current="page"{{end}}>Overview</a>
<a href="{{.Page.Root}}history.html"{{if eq .Page.Nav "history"}} aria-current="page"{{end}}>History</a>
<a href="{{.Page.Root}}index.html#compare">Compare</a>
<a href="{{.Page.Root}}index.html#sweeps"{{if eq .Page.Nav "sweeps"}} aria-current="page"{{end}}>Sweeps</a>
</nav>
</div></header>
<main id="main">
{{end}}

{{define "foot"}}
<footer class="site">Built by <code>action site</code> from the dashboard's <code>data/</code>: every figure is in the snapshot's <code>summary.json</code> and <code>points.json</code>.</footer>
</main>
<script src="{{.Page.Root}}assets/site.js"></script>
</body>
</html>
{{end}}

{{define "metrictable"}}<div class="scroll"><table id="{{.id}}">
<caption>{{.caption}}</caption>
<thead><tr><th scope="col">Metric</th><th scope="col" class="num">MAPE</th><th scope="col" class="num">Shape</th><th scope="col" class="num">Bias</th><th scope="col" class="num">Median APE</th><th scope="col">Worst point</th><th scope="col" class="num">Points (shape)</th></tr></thead>
<tbody>
{{range .rows}}<tr><th scope="row">{{.Name}}</th><td class="num" data-col="mape">{{.MAPE}}</td><td class="num" data-col="shape">{{.Shape}}</td><td class="num" data-col="bias">{{.Bias}}</td><td class="num">{{.Median}}</td><td class="id">{{if .WorstHref}}<a href="{{.WorstHref}}">{{.WorstPoint}}</a> ({{.WorstAPE}}){{else}}{{.Worst}}{{end}}</td><td class="num" data-col="n">{{.N}} ({{.ShapeN}})</td></tr>
{{end}}</tbody>
</table></div>
{{end}}

{{define "overview"}}
<h1>BLIS simulator accuracy: {{.Label}} {{if .Release}}<span class="badge release">release</span>{{else}}<span class="badge experimental">experimental</span>{{end}}</h1>
<p class="sub">Snapshot <code>{{.ID}}</code>, {{if .Backfilled}}of a release made {{.Date}}, scored {{.Backfilled}} (backfilled){{else}}published {{.Date}}{{end}}.</p>
{{if not .Release}}<div class="banner" role="note"><strong>Experimental figures.</strong> {{range $i, $r := .LabelReasons}}{{if $i}}; {{end}}{{$r}}{{end}}.{{if .NoRelease}} No release snapshot is published yet, so the Overview shows the newest snapshot.{{end}}</div>{{end}}
{{if .Newer}}<p class="newer" id="newer">Newer experimental {{if eq (len .Newer) 1}}snapshot{{else}}snapshots{{end}}, not the published accuracy: {{range $i, $n := .Newer}}{{if $i}}, {{end}}<a href="{{$n.Href}}">{{$n.Label}}</a>{{end}} (<a href="history.html">all snapshots</a>).</p>{{end}}
<h2 id="headline">Headline (tier {{.Tier}})</h2>
{{if .FellBack}}<div class="banner info" role="note">Tier measured + resolved has no scored point, so this table falls back to tier all, which includes points whose engine settings had to be assumed.</div>{{end}}
{{template "metrictable" (dict "id" "headline-table" "caption" (printf "Headline metrics, tier %s" .Tier) "rows" .Headline)}}{{with .HeadlineSaturated}}<p class="banner saturated" id="headline-saturated"><strong>{{.Lead}}</strong> {{.Rest}}</p>
{{end}}{{template "reading" .HeadlineReading}}<p class="note" id="points-note">Tier measured + resolved: the points whose settings were all measured on the server or resolved from the engine's documented defaults and the benchmark's recipe; tier all adds those with an assumed setting (a GPU from the harness's hardware registry, H200 and B200, counts as assumed). Points (shape): the points each metric is scored over, and in brackets those its shape error is computed over (every point of a sweep of at least 3 scored points but the lowest load, the anchor its curve is compared from).</p>

<h2 id="all-tier">Tier all (every scored point)</h2>
{{if .SameTiers}}<p>Every scored point is measured or resolved: the two tiers hold the same points, and this table equals the headline's.</p>{{end}}
{{template "metrictable" (dict "id" "all-table" "caption" "Headline metrics, tier all" "rows" .AllTier)}}{{with .AllSaturated}}<p class="banner saturated" id="all-saturated"><strong>{{.Lead}}</strong> {{.Rest}}</p>
{{end}}{{template "reading" .AllReading}}
{{if .Worst}}<h2 id="worst">Where is it worst</h2>
<p>Each model × hardware × data source, worst first (its largest headline MAPE in either tier), with its sweeps. An n/a says why where it stands.</p>
<div class="scroll"><table id="worst-table" class="sortable">
<caption>Headline MAPE by model, hardware and source, in both tiers (click a column to sort)</caption>
<thead><tr><th scope="col"><button type="button">Model</button></th><th scope="col"><button type="button">Hardware</button></th><th scope="col"><button type="button">Source</button></th>{{range .HeadlineNames}}<th scope="col" class="num"><button type="button">{{.}} MAPE, measured + resolved</button></th><th scope="col" class="num"><button type="button">{{.}} MAPE, all</button></th>{{end}}<th scope="col" class="num"><button type="button">Scored</button></th><th scope="col">Sweeps</th></tr></thead>
<tbody>
{{range .Worst}}<tr><td class="id">{{.Model}}</td><td>{{.Hardware}}</td><td>{{.Source}}</td>{{range .Cells}}<td class="num{{if .Why}} why{{end}}"{{if .Sort}} data-sort="{{.Sort}}"{{end}}>{{.Text}}{{with .Why}}<br><small>{{.}}</small>{{end}}</td>{{end}}<td class="num" data-sort="{{.Scored}}">{{.Scored}} of {{.Total}}</td><td class="sweeps">{{range $i, $s := .Sweeps}}{{if $i}}, {{end}}<a href="{{$s.Href}}">{{$s.Name}}</a>{{end}}</td></tr>
{{end}}</tbody>
</table></div>
{{end}}
{{if .Secondary}}<h2 id="secondary">Secondary metrics (tier {{.Tier}})</h2>
<p>Not part of the headline. Each is scored over the points whose measurement has it.</p>
{{template "metrictable" (dict "id" "secondary-table" "caption" (printf "Secondary metrics, tier %s" .Tier) "rows" .Secondary)}}{{end}}
{{if .Sources}}<h2 id="sources">By source (tier {{.Tier}})</h2>
<div class="scroll"><table id="sources-table">
<caption>Headline metrics by data source, tier {{.Tier}}</caption>
<thead><tr><th scope="col">Source</th>{{range .HeadlineNames}}<th scope="col" class="num">{{.}} MAPE</th><th scope="col" class="num">{{.}} shape</th><th scope="col" class="num">{{.}} bias</th>{{end}}<th scope="col" class="num">Points</th><th scope="col" class="num">Saturated</th></tr></thead>
<tbody>
{{range .Sources}}<tr><th scope="row">{{.Model}}</th>{{range .Cells}}<td class="num">{{.}}</td>{{end}}<td class="num">{{.N}}</td><td class="num">{{.Saturated}}</td></tr>
{{end}}</tbody>
</table></div>{{with .SourcesNote}}
<p class="note">† {{.}}</p>{{end}}{{end}}
{{if .Groups}}<h2 id="groups">By model × hardware (tier {{.Tier}})</h2>
<div class="scroll"><table id="groups-table" class="sortable">
<caption>Headline metrics by model and hardware, tier {{.Tier}}</caption>
<thead><tr><th scope="col"><button type="button">Model</button></th><th scope="col"><button type="button">Hardware</button></th>{{range .HeadlineNames}}<th scope="col" class="num"><button type="button">{{.}} MAPE</button></th><th scope="col" class="num"><button type="button">{{.}} shape</button></th><th scope="col" class="num"><button type="button">{{.}} bias</button></th>{{end}}<th scope="col" class="num"><button type="button">Points</button></th><th scope="col" class="num"><button type="button">Saturated</button></th></tr></thead>
<tbody>
{{range .Groups}}<tr><td class="id">{{.Model}}</td><td>{{.Hardware}}</td>{{range .Cells}}<td class="num">{{.}}</td>{{end}}<td class="num">{{.N}}</td><td class="num">{{.Saturated}}</td></tr>
{{end}}</tbody>
</table></div>{{with .GroupsNote}}
<p class="note">† {{.}}</p>{{end}}{{end}}
<h2 id="coverage">Coverage</h2>
<p>{{.Corpus}} corpus points: {{.Scored}} scored, {{.NotSc}} not scored.{{if .Saturated}} {{.Saturated}} of the scored points {{if eq .Saturated 1}}is{{else}}are{{end}} saturated: the simulator completed the requests more slowly than they were offered, so the prediction (kept in the figures) describes an overloaded server.{{end}}</p>
{{if .Reasons}}<div class="scroll"><table id="coverage-table">
<caption>Why points were not scored</caption>
<thead><tr><th scope="col">Not scored because</th><th scope="col" class="num">Points</th></tr></thead>
<tbody>
{{range .Reasons}}<tr><td>{{.Reason}}</td><td class="num">{{.N}}</td></tr>
{{end}}</tbody>
</table></div>{{end}}
{{template "warnings" .Warnings}}{{template "why" .Why}}
{{if .Sweeps}}<h2 id="sweeps">Sweeps</h2>
<p>Measured and predicted latency over load, point by point, for each sweep of this snapshot.</p>
<ul class="sweeps">
{{range .Sweeps}}<li><a href="{{.Href}}">{{.Unit}}</a> ({{.Scored}} of {{.N}} scored)</li>
{{end}}</ul>{{end}}
<h2 id="provenance">Provenance</h2>
<dl class="prov">
{{range .Provenance}}<dt>{{.Term}}</dt><dd>{{.Value}}</dd>
{{end}}<dt>Shape</dt><dd>{{.ShapeDefinition}}</dd>
</dl>
{{end}}

{{define "skipped"}}{{with .Page.Skipped}}<div class="banner" id="skipped"><p><strong>{{len .}} {{if eq (len .) 1}}snapshot{{else}}snapshots{{end}} of the dashboard's index could not be read and {{if eq (len .) 1}}is{{else}}are{{end}} left out of this site</strong> (its files are missing, malformed or over their size cap):</p>
<ul>{{range .}}<li><code>{{.ID}}</code>, published {{.Date}}: {{.Reason}}</li>
{{end}}</ul></div>
{{end}}{{end}}

{{define "pruned"}}{{with .Page.Pruned}}<div class="banner info" id="pruned"><p><strong>{{.Count}} experimental {{if eq .Count 1}}snapshot was{{else}}snapshots were{{end}} pruned</strong> from this dashboard{{if eq .Count 1}}: {{.Oldest}}{{else}}, from {{.Oldest}} to {{.Newest}}{{end}}. It keeps every release and {{if eq .KeepExperimental 0}}no experimental snapshot{{else if eq .KeepExperimental 1}}the newest experimental snapshot{{else}}the newest {{.KeepExperimental}} experimental snapshots{{end}} (<code>retention.keep_experimental</code> in <code>.github/accuracy-dashboard.yaml</code>); a pruned snapshot's data, pages and comparisons are gone.</p></div>
{{end}}{{end}}

{{define "index"}}{{template "head" .}}
{{template "skipped" .}}{{template "pruned" .}}{{template "overview" .Body.Overview}}
<section id="compare" aria-labelledby="compare-h">
<h2 id="compare-h">Compare two snapshots</h2>
<p>Δ = B − A per metric over the points both snapshots scored, the points each scored alone, the points whose error moved most, and the change in the predictions themselves (the median of B's prediction over A's). A link to a comparison is <code>index.html?a=&lt;snapshot id&gt;&amp;b=&lt;snapshot id&gt;</code>.</p>
<form class="picker" action="index.html" method="get">
<label>A (before)<select name="a" id="pick-a">
{{range .Body.Options}}<option value="{{.ID}}"{{if .A}} selected{{end}}>{{.Label}}</option>
{{end}}</select></label>
<label>B (after)<select name="b" id="pick-b">
{{range .Body.Options}}<option value="{{.ID}}"{{if .B}} selected{{end}}>{{.Label}}</option>
{{end}}</select></label>
<button type="submit">Compare</button>
</form>
<div id="comparison" aria-live="polite"><noscript><p>The comparison is computed in your browser from the snapshots' points: it needs JavaScript. Without it, compare two snapshots with <code>action compare</code>; each snapshot's comparison with the one before it is in the dashboard's <code>data/compare/</code>.</p></noscript></div>
</section>
<script>window.SITE = {{.Body.Config}};</script>
{{template "foot" .}}{{end}}

{{define "snapshot"}}{{template "head" .}}
{{template "overview" .Body}}
<p>{{if .Body.CompareHref}}<a href="{{.Page.Root}}{{.Body.CompareHref}}">Compare with the previous snapshot ({{.Body.PreviousLabel}})</a> · {{end}}<a href="{{.Page.Root}}index.html#compare">compare with another</a> · <a href="{{.Page.Root}}history.html">all snapshots</a></p>
{{template "foot" .}}{{end}}

{{define "historychart"}}<figure class="chart"><figcaption><strong>{{.Title}}.</strong> {{with .Note}}{{.}} {{end}}The table below holds the same figures.</figcaption>{{.SVG}}</figure>
{{end}}

{{define "history"}}{{template "head" .}}
<h1>History</h1>
{{template "skipped" .}}{{template "pruned" .}}<p class="sub">The headline MAPE and shape error of every snapshot (tier measured + resolved, or all where a snapshot has no measured or resolved point). Each mark links to its snapshot.</p>
<ul class="legend" aria-hidden="true">
{{range .Body.Series}}<li><span class="key {{.Class}}"></span>{{.Name}}</li>
{{end}}<li><span class="hollow"></span>an experimental snapshot (not a release)</li>
</ul>
{{if eq (len .Body.Ranges) 1}}{{range (index .Body.Ranges 0).Charts}}{{template "historychart" .}}{{end}}{{template "historytable" .}}{{else}}<div class="ranges">
{{range .Body.Ranges}}<input type="radio" name="range" class="range-input" id="range-{{.Key}}"{{if .Checked}} checked{{end}}>
{{end}}<p class="range-pick">Show {{range .Body.Ranges}}<label for="range-{{.Key}}">{{.Label}}</label> {{end}}snapshots</p>
{{range .Body.Ranges}}<div class="range range-{{.Key}}">
{{range .Charts}}{{template "historychart" .}}{{end}}</div>
{{end}}{{template "historytable" .}}</div>
{{end}}
{{template "foot" .}}{{end}}

{{define "historytable"}}<div class="scroll"><table id="history-table" class="sortable">
<caption>{{if eq (len .Body.Ranges) 1}}Every snapshot, newest first{{else}}{{range .Body.Ranges}}<span class="cap cap-{{.Key}}">{{if eq .Key "all"}}Every snapshot{{else}}The last {{.Key}} snapshots{{end}}, newest first</span>{{end}}{{end}}</caption>
<thead><tr><th scope="col"><button type="button">Snapshot</button></th><th scope="col"><button type="button">Label</button></th><th scope="col"><button type="button">Tier</button></th>{{range .Body.Series}}<th scope="col" class="num"><button type="button">{{.Name}} MAPE</button></th><th scope="col" class="num"><button type="button">{{.Name}} shape</button></th>{{end}}<th scope="col" class="num"><button type="button">Scored</button></th></tr></thead>
<tbody>
{{range .Body.Rows}}<tr{{with .Class}} class="{{.}}"{{end}}><th scope="row"><a href="{{.Href}}">{{.Label}}</a></th><td>{{if .Release}}release{{else}}experimental{{end}}{{with .Backfilled}}, backfilled: scored <span class="nowrap">{{.}}</span>{{end}}</td><td>{{.Tier}}</td>{{range .Cells}}<td class="num">{{.}}</td>{{end}}<td class="num">{{.Scored}} of {{.N}}</td></tr>
{{end}}</tbody>
</table></div>
{{end}}

{{define "sweep"}}{{template "head" .}}
<h1>{{.Body.Unit}}</h1>
<p class="sub">{{.Body.Model}} on {{.Body.Hardware}}, over {{.Body.LoadName}}; snapshot <a href="{{.Page.Root}}{{.Body.SnapshotHref}}">{{.Body.Snapshot}}</a>.</p>
{{if .Body.ScoredN}}<h2 id="sweep-accuracy">This sweep's accuracy</h2>
{{template "metrictable" (dict "id" "sweep-table" "caption" .Body.FiguresCaption "rows" .Body.Figures)}}<p class="note">Points (shape): the points each metric is scored over, and in brackets those its shape error is computed over (every scored point but the lowest load, in a sweep of at least 3 scored points).</p>
{{end}}<ul class="legend" aria-hidden="true"><li><span class="key s1"></span>measured</li>{{if .Body.Predicted}}<li><span class="key s2 dashed"></span>predicted</li>{{end}}{{if .Body.Saturated}}<li><span class="ring"></span>saturated point (the simulator fell behind the offered load)</li>{{end}}</ul>
{{range .Body.Charts}}<figure class="chart"><figcaption><strong>{{.Title}}.</strong> {{with .Note}}{{.}} {{end}}The table below holds the same figures.</figcaption>{{.SVG}}</figure>
{{end}}
<div class="scroll"><table id="points-table" class="sortable">
<caption>Every point of the sweep (click a column to sort)</caption>
<thead><tr><th scope="col" class="num"><button type="button">Load</button></th><th scope="col"><button type="button">Tier</button></th>{{range .Body.Metrics}}<th scope="col" class="num"><button type="button">Measured {{.}} (ms)</button></th><th scope="col" class="num"><button type="button">Predicted {{.}} (ms)</button></th><th scope="col" class="num"><button type="button">{{.}} error</button></th>{{end}}<th scope="col"><button type="button">Note (not scored because, saturated)</button></th></tr></thead>
<tbody>
{{range .Body.Rows}}<tr><td class="num" data-sort="{{.LoadSort}}">{{.Load}}</td><td>{{.Tier}}</td>{{range .Cells}}<td class="num"{{if .Sort}} data-sort="{{.Sort}}"{{end}}>{{.Text}}</td>{{end}}<td class="reason">{{.Reason}}</td></tr>
{{end}}</tbody>
</table></div>
<p class="note">Error: the prediction's error over the measurement, (predicted − measured) / measured; above 0 the simulator over-predicts the latency. Tier: how the point's settings are known (measured, resolved from documented defaults, or assumed).</p>
{{if .Body.Saturated}}<p>A saturated point is scored, but the simulator completed its requests more slowly than they were offered: its prediction describes an overloaded server.</p>{{end}}
{{if .Body.NotScored}}<h2 id="not-scored">Not scored</h2>
<p>Each not-scored point with its reason and the harness's detail.</p>
<ul>
{{range .Body.NotScored}}<li>Load {{.Load}}: {{.Reason}}{{if .Detail}} ({{.Detail}}){{end}}</li>
{{end}}</ul>{{end}}
{{template "foot" .}}{{end}}
`)).Parse(siteWarningsTemplate + siteReadingTemplate + siteWhyTemplate))
