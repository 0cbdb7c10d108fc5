package lbserve

import (
	"strings"
	"testing"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/browsertest"
)

// In headless chromium: the served page's form is filled in and
// submitted as a user would, the job runs on the stand-in, the page
// reloads and the new row is in the group's table; the page logs no error.
func TestServeFormInChromium(t *testing.T) {
	bin := browsertest.Chromium(t)
	ts := newTestServer(t, 1, 4)
	tab := browsertest.Open(t, bin, 1400, 900)
	if err := tab.Load(ts.url+"/", "#declare-form"); err != nil {
		t.Fatal(err)
	}
	// The offered work shown is the chosen group's, read-only.
	if shown, err := browsertest.Eval[string](tab, `document.querySelector('#offered [data-group="chat"]').hidden + "/" + document.querySelector('#offered [data-group="sweep"]').hidden`); err != nil || shown != "false/true" {
		t.Errorf("offered work shown (chat hidden/sweep hidden) = %q, %v; want false/true", shown, err)
	}
	fill := `(function () {
	  var f = document.getElementById("declare-form"), set = function (n, v) { f.elements[n].value = v; };
	  set("group", "chat"); f.elements.group.dispatchEvent(new Event("change"));
	  set("id", "a100-tp2"); set("model", "org/test-model-7b"); set("hardware", "A100-80"); set("tp", "2");
	  set("max_num_seqs", "64"); set("token", "` + token + `");
	  f.requestSubmit();
	  return true;
	})()`
	if _, err := browsertest.Eval[bool](tab, fill); err != nil {
		t.Fatal(err)
	}
	var row bool
	for deadline := time.Now().Add(2 * time.Minute); !row && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		// Evaluating fails while the page reloads: try again.
		row, _ = browsertest.Eval[bool](tab, `document.querySelector('table.board tr[data-run="a100-tp2"]') !== null`)
	}
	if !row {
		status, _ := browsertest.Eval[string](tab, `document.getElementById("declare-status").textContent`)
		t.Fatalf("the new row did not appear (status: %q)", status)
	}
	cells, err := browsertest.Eval[string](tab, `Array.prototype.map.call(document.querySelector('tr[data-run="a100-tp2"]').cells, function (c) { return c.textContent; }).slice(0, 4).join("|")`)
	if err != nil || cells != "a100-tp2|org/test-model-7b|A100-80|2" {
		t.Errorf("the new row's first cells = %q, %v", cells, err)
	}
	// A refused declaration says why in the page.
	again := strings.Replace(fill, `f.requestSubmit();`, `set("tp", "0"); set("id", "x"); f.elements.tp.removeAttribute("min"); f.requestSubmit();`, 1)
	if _, err := browsertest.Eval[bool](tab, again); err != nil {
		t.Fatal(err)
	}
	var status string
	for deadline := time.Now().Add(time.Minute); !strings.HasPrefix(status, "refused") && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		status, _ = browsertest.Eval[string](tab, `document.getElementById("declare-status").textContent`)
	}
	if status != "refused (400): candidate.tp: minimum: got 0, want 1" {
		t.Errorf("status of a refused declaration = %q", status)
	}
	var errs []string
	for _, e := range tab.Errors() { // the refusal just provoked is the one expected
		if !strings.Contains(e, "/api/run:0: Failed to load resource: the server responded with a status of 400") {
			errs = append(errs, e)
		}
	}
	if len(errs) > 0 {
		t.Errorf("the page logged errors:\n%s", strings.Join(errs, "\n"))
	}
}

// In headless chromium: a declared candidate whose run fails reloads the
// page with its failed row, and the status message saying why (and how to
// declare it again or remove it) is still shown.
func TestServeFormFailureStaysShown(t *testing.T) {
	bin := browsertest.Chromium(t)
	ts := newTestServer(t, 1, 4)
	tab := browsertest.Open(t, bin, 1400, 900)
	if err := tab.Load(ts.url+"/", "#declare-form"); err != nil {
		t.Fatal(err)
	}
	fill := `(function () {
	  var f = document.getElementById("declare-form"), set = function (n, v) { f.elements[n].value = v; };
	  set("group", "chat"); set("id", "crash"); set("model", "org/fault-crash"); set("hardware", "H100"); set("tp", "1");
	  set("token", "` + token + `");
	  f.requestSubmit();
	  return true;
	})()`
	if _, err := browsertest.Eval[bool](tab, fill); err != nil {
		t.Fatal(err)
	}
	var shown string
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		// After the reload: the failed row is on the page, the message kept.
		shown, _ = browsertest.Eval[string](tab, `document.querySelector('tr[data-run="crash"]') === null ? "" : document.getElementById("declare-status").textContent`)
		if shown != "" {
			break
		}
	}
	if !strings.HasPrefix(shown, "job ") || !strings.Contains(shown, ": failed (crash: simulator-run-error") ||
		!strings.HasSuffix(shown, "Declare crash again with the mistake fixed, or remove it: DELETE api/run/chat/crash with the token.") {
		t.Errorf("status after the failed job's reload = %q", shown)
	}
}

// In headless chromium: a TraceV2 pair and a model's config.json are
// uploaded through the page's forms as a user picks files, each reload
// keeps its message, the saved workload becomes a group of the declare
// form, and a candidate declared for it, and one of the uploaded model,
// run and appear in their groups' tables.
func TestServeUploadsInChromium(t *testing.T) {
	bin := browsertest.Chromium(t)
	ts, _ := newUploadServer(t)
	header, data := testTraceV2(t, 6)
	tab := browsertest.Open(t, bin, 1400, 900)
	if err := tab.Load(ts.url+"/", "#trace-form"); err != nil {
		t.Fatal(err)
	}
	// pick sets a file input as a user's pick does: a File in its list.
	const pick = `function pick(input, name, content) { var dt = new DataTransfer(); dt.items.add(new File([content], name)); input.files = dt.files; }`
	upload := `(function () {
	  ` + pick + `
	  var f = document.getElementById("trace-form");
	  f.elements.id.value = "uploaded-chat"; f.elements.format.value = "tracev2"; f.elements.load.value = "recorded";
	  pick(f.elements.header, "trace.yaml", ` + body(t, header) + `); pick(f.elements.data, "trace.csv", ` + body(t, data) + `);
	  f.elements.token.value = "` + token + `";
	  f.requestSubmit();
	  return true;
	})()`
	if _, err := browsertest.Eval[bool](tab, upload); err != nil {
		t.Fatal(err)
	}
	waitFor(t, tab, `document.querySelector('#declare-group option[value="uploaded-chat"]') !== null && document.getElementById("trace-status").textContent`, "saved workload uploaded-chat (trace ")
	model := `(function () {
	  ` + pick + `
	  var f = document.getElementById("model-form");
	  f.elements.model.value = "acme/tiny-7b"; pick(f.elements.config, "config.json", ` + body(t, tinyConfig) + `);
	  f.elements.token.value = "` + token + `";
	  f.requestSubmit();
	  return true;
	})()`
	if _, err := browsertest.Eval[bool](tab, model); err != nil {
		t.Fatal(err)
	}
	waitFor(t, tab, `document.getElementById("model-status").textContent`, "model acme/tiny-7b is in the user-model store")
	for _, c := range []struct{ group, id, model string }{{"uploaded-chat", "h100-trace", "org/test-model-7b"}, {"chat", "tiny", "acme/tiny-7b"}} {
		declare := `(function () {
		  var f = document.getElementById("declare-form"), set = function (n, v) { f.elements[n].value = v; };
		  set("group", "` + c.group + `"); f.elements.group.dispatchEvent(new Event("change"));
		  set("id", "` + c.id + `"); set("model", "` + c.model + `"); set("hardware", "H100"); set("tp", "1");
		  set("token", "` + token + `");
		  f.requestSubmit();
		  return true;
		})()`
		if _, err := browsertest.Eval[bool](tab, declare); err != nil {
			t.Fatal(err)
		}
		// The row is in its group's section, with the candidate's model.
		waitFor(t, tab, `(function () { var r = document.querySelector('#g-`+c.group+` table.board tr[data-run="`+c.id+`"]'); return r === null ? "" : r.cells[1].textContent; })()`, c.model)
	}
	if errs := tab.Errors(); len(errs) > 0 {
		t.Errorf("the page logged errors:\n%s", strings.Join(errs, "\n"))
	}
}

// waitFor evaluates expr (a string) until it begins with want, for up to
// two minutes (evaluating fails while the page reloads: it is tried again).
func waitFor(t *testing.T, tab *browsertest.Tab, expr, want string) {
	t.Helper()
	var got string
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if got, _ = browsertest.Eval[string](tab, expr); strings.HasPrefix(got, want) {
			return
		}
	}
	status, _ := browsertest.Eval[string](tab, `document.getElementById("declare-status").textContent + " | " + document.getElementById("trace-status").textContent + " | " + document.getElementById("model-status").textContent`)
	t.Fatalf("%s: %q, want it to begin %q (status: %s)", expr, got, want, status)
}
