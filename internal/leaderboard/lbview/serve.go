package lbview

import (
	"bytes"
	"fmt"
	"html/template"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
)

// ServePage is the page `action leaderboard serve` answers GET /
// with: HTML's page (the same tables, sorting and legend) with a
// "Declare a run" form added at its end. The form picks a group, whose
// offered work is shown read-only (it is the group's, never the
// candidate's), takes a candidate's deployment (id, model, hardware, TP,
// DP, replicas, engine settings) and the server's bearer token, sends it to
// POST api/run, polls api/jobs/ID until the job ends and then reloads the
// page, on which the new row appears; a failed job's message (with how to
// declare it again or remove it) stays shown after the reload. The token
// stays in the page (a password field), never in a URL or a cookie.
func ServePage(b leaderboard.Board) (string, error) {
	page, err := HTML(b)
	if err != nil {
		return "", err
	}
	var groups []declareGroup
	for _, g := range b.Groups {
		var loads []string
		for _, t := range g.Tables {
			loads = append(loads, t.Load.String())
		}
		title := g.Title
		if title == "" {
			title = g.ID
		}
		groups = append(groups, declareGroup{ID: g.ID, Title: title, Workload: workloadWords(g.Workload), Loads: strings.Join(loads, "; ")})
	}
	var form bytes.Buffer
	if err := declareTemplate.Execute(&form, groups); err != nil {
		return "", err
	}
	form.WriteString(uploadForms)
	i := strings.LastIndex(page, "</body>")
	if i < 0 {
		return "", fmt.Errorf("leaderboard page has no </body>")
	}
	return page[:i] + form.String() + page[i:], nil
}

type declareGroup struct {
	ID, Title, Workload, Loads string
}

var declareTemplate = template.Must(template.New("declare").Parse(`<section id="declare">
<h2>Declare a run</h2>
<p>The candidate runs on the group's offered work, through the server's simulator build; its result is filed beside the others and appears above when its run ends. A run declared here is added to the declarations file beside the results, not to runs.yaml: promote it there by pull request.</p>
<form id="declare-form">
<p><label>Group <select name="group" id="declare-group" required>{{range .}}<option value="{{.ID}}">{{.Title}} ({{.ID}})</option>{{end}}</select></label></p>
<dl id="offered">{{range .}}<div data-group="{{.ID}}"><dt>{{.Title}} <code>{{.ID}}</code></dt><dd>Offered work (fixed by the group): {{.Workload}}. Load: {{.Loads}}.</dd></div>{{end}}</dl>
<fieldset><legend>Candidate</legend>
<p><label>Id <input name="id" required pattern="[a-z0-9][a-z0-9._\-]{0,63}" placeholder="h100-tp2"></label>
<label>Model <input name="model" required placeholder="qwen/qwen3-14b"></label>
<label>Hardware <input name="hardware" required placeholder="H100"></label>
<label>TP <input name="tp" type="number" min="1" required value="1"></label>
<label>DP <input name="dp" type="number" min="1"></label>
<label>Replicas <input name="replicas" type="number" min="1"></label></p>
<p>Engine (empty: the simulator's default):
<label>max_num_seqs <input name="max_num_seqs" type="number" min="1"></label>
<label>max_num_batched_tokens <input name="max_num_batched_tokens" type="number" min="1"></label>
<label>gpu_memory_utilization <input name="gpu_memory_utilization" type="number" step="any" min="0" max="1"></label>
<label>block_size <input name="block_size" type="number" min="1"></label>
<label>max_model_len <input name="max_model_len" type="number" min="1"></label></p>
</fieldset>
<p><label>Token <input name="token" type="password" autocomplete="off" required></label>
<button type="submit">Declare and run</button></p>
</form>
<p id="declare-status" role="status"></p>
</section>
<script>
(function () {
  var form = document.getElementById("declare-form"), status = document.getElementById("declare-status");
  function v(name) { return form.elements[name].value; }
  function show() {
    var g = v("group");
    document.querySelectorAll("#offered [data-group]").forEach(function (d) { d.hidden = d.dataset.group !== g; });
  }
  form.elements.group.addEventListener("change", show);
  show();
  // A failed job's message outlives the reload that shows its row.
  var kept = null;
  try { kept = sessionStorage.getItem("declare-status"); sessionStorage.removeItem("declare-status"); } catch (e) {}
  if (kept) { status.textContent = kept; status.dataset.done = "failed"; status.scrollIntoView(); }
  function poll(id, group, cand) {
    fetch("api/jobs/" + encodeURIComponent(id)).then(function (r) { return r.json(); }).then(function (j) {
      status.textContent = "job " + id + ": " + j.status + (j.reason ? " (" + j.reason + ")" : "");
      if (j.status === "queued" || j.status === "running") { setTimeout(function () { poll(id, group, cand); }, 1000); return; }
      status.dataset.done = j.status;
      if (j.status === "failed") {
        status.textContent += ". Declare " + cand + " again with the mistake fixed, or remove it: DELETE api/run/" + group + "/" + cand + " with the token.";
        try { sessionStorage.setItem("declare-status", status.textContent); } catch (e) {}
      }
      location.reload();
    });
  }
  form.addEventListener("submit", function (e) {
    e.preventDefault();
    var c = {id: v("id"), model: v("model"), hardware: v("hardware"), tp: Number(v("tp"))}, engine = {};
    ["dp", "replicas"].forEach(function (k) { if (v(k) !== "") { c[k] = Number(v(k)); } });
    ["max_num_seqs", "max_num_batched_tokens", "gpu_memory_utilization", "block_size", "max_model_len"].forEach(function (k) {
      if (v(k) !== "") { engine[k] = Number(v(k)); }
    });
    if (Object.keys(engine).length) { c.engine = engine; }
    status.textContent = "sending…";
    fetch("api/run", {method: "POST", headers: {"Content-Type": "application/json", "Authorization": "Bearer " + v("token")},
      body: JSON.stringify({group: v("group"), candidate: c})}).then(function (r) {
      return r.json().then(function (j) {
        if (r.status !== 202) { status.textContent = "refused (" + r.status + "): " + j.error; return; }
        status.textContent = "job " + j.job + ": queued";
        poll(j.job, v("group"), c.id);
      });
    });
  });
})();
</script>
`))

// uploadForms upload a trace, saved as a workload (POST /api/workload),
// and a model's config.json into the user-model store (POST /api/model);
// the page reloads after a success, so that the saved workload is a group
// of the declare form, and the status message outlives the reload.
const uploadForms = `<section id="upload">
<h2>Upload a trace</h2>
<p>A recorded trace is saved as a workload of its own, which candidates are then declared for above. It is stored by content hash beside the results; a trace recorded on more than one node, or one the server's simulator build cannot replay as asked, is refused here, naming the build.</p>
<form id="trace-form">
<p><label>Workload id <input name="id" required pattern="[a-z0-9][a-z0-9._\-]{0,63}" placeholder="recorded-chat"></label>
<label>Title <input name="title" placeholder="Recorded chat traffic"></label>
<label>Format <select name="format"><option value="tracev2">TraceV2 (header + data)</option><option value="otel">OpenTelemetry JSON</option><option value="weka">Weka JSONL</option></select></label></p>
<p><label>Header (.yaml) <input name="header" type="file" accept=".yaml,.yml"></label>
<label>Data (.csv) <input name="data" type="file" accept=".csv"></label>
<label>File (.json, .jsonl) <input name="file" type="file" accept=".json,.jsonl"></label></p>
<p><label>Offered at <select name="load"><option value="recorded">its recorded arrivals</option><option value="concurrency">a pool of concurrent sessions</option></select></label>
<label>Sessions <input name="sessions" type="number" min="1"></label></p>
<p><label>Token <input name="token" type="password" autocomplete="off" required></label>
<button type="submit">Upload and save</button></p>
</form>
<p id="trace-status" role="status"></p>
<h2>Add a model</h2>
<p>The HuggingFace <code>config.json</code> of a model the simulator build and its catalog lack; it is checked for what the simulator reads from it and kept in the user-model store, and candidates may then name the model.</p>
<form id="model-form">
<p><label>Model <input name="model" required placeholder="acme/tiny-7b"></label>
<label>config.json <input name="config" type="file" accept=".json" required></label></p>
<p><label>Token <input name="token" type="password" autocomplete="off" required></label>
<button type="submit">Upload</button></p>
</form>
<p id="model-status" role="status"></p>
</section>
<script>
(function () {
  function text(input) { return input.files.length ? input.files[0].text() : Promise.resolve(""); }
  function send(path, form, status, body) {
    status.textContent = "sending…";
    return fetch(path, {method: "POST", headers: {"Content-Type": "application/json", "Authorization": "Bearer " + form.elements.token.value},
      body: JSON.stringify(body)}).then(function (r) {
      return r.json().then(function (j) {
        if (r.status !== 200 && r.status !== 201) { status.textContent = "refused (" + r.status + "): " + j.error; return; }
        status.textContent = path === "api/workload" ? "saved workload " + j.workload + " (trace " + j.sha256.slice(0, 12) + "): declare candidates for it above"
          : "model " + j.model + " is in the user-model store: declare candidates of it above";
        try { sessionStorage.setItem(status.id, status.textContent); } catch (e) {}
        location.reload();
      });
    });
  }
  ["trace-status", "model-status"].forEach(function (id) {
    var kept = null;
    try { kept = sessionStorage.getItem(id); sessionStorage.removeItem(id); } catch (e) {}
    if (kept) { document.getElementById(id).textContent = kept; }
  });
  var tf = document.getElementById("trace-form"), ts = document.getElementById("trace-status");
  tf.addEventListener("submit", function (e) {
    e.preventDefault();
    var el = tf.elements, load = el.load.value === "recorded" ? {arrival: "recorded"} : {concurrency: Number(el.sessions.value)};
    Promise.all([text(el.header), text(el.data), text(el.file)]).then(function (files) {
      var body = {id: el.id.value, format: el.format.value, load: load};
      if (el.title.value !== "") { body.title = el.title.value; }
      if (el.format.value === "tracev2") { body.header = files[0]; body.data = files[1]; } else { body.file = files[2]; }
      return send("api/workload", tf, ts, body);
    });
  });
  var mf = document.getElementById("model-form"), ms = document.getElementById("model-status");
  mf.addEventListener("submit", function (e) {
    e.preventDefault();
    text(mf.elements.config).then(function (config) { return send("api/model", mf, ms, {model: mf.elements.model.value, config: config}); });
  });
})();
</script>
`
