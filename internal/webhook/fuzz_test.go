package webhook

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/githubfake"
)

// fuzzSeeds adds every real payload (npm @octokit/webhooks-examples) of the
// events the bot subscribes to, with its event name.
func fuzzSeeds(f *testing.F, add func(event string, body []byte)) {
	for _, p := range []struct{ event, action string }{
		{"release", "published"}, {"release", "created"}, {"release", "prereleased"}, {"create", ""},
		{"workflow_run", "completed"}, {"workflow_run", "requested"},
		{"installation", "created"}, {"installation", "deleted"}, {"ping", ""},
	} {
		for _, ex := range githubfake.WebhookExamples(f, p.event, p.action) {
			b, err := json.Marshal(ex)
			if err != nil {
				f.Fatal(err)
			}
			add(p.event, b)
		}
	}
	add("release", []byte(`{"action":"published","release":{"tag_name":"v0.0.1","body":"x"},"repository":{"full_name":"Codertocat/Hello-World"}}`))
	add("workflow_run", []byte(`{"action":"completed","workflow_run":null,"repository":{"full_name":"a/b"}}`))
	add("release", []byte(`{"action":"published","release":7}`))
	add("ping", []byte(`[`))
	add("create", []byte(`{"ref":"v0.7.16","ref_type":"tag","repository":{"full_name":"Codertocat/Hello-World"}}`))
	add("create", []byte(`{"ref":"v0.7.16","ref_type":"tag","repository":null}`))
}

// FuzzWebhook sends arbitrary deliveries through the real handler: any
// body, signed with the secret or not, under any event and delivery id. No
// input panics; an unsigned or wrongly signed body is always refused (401,
// or 413 when too large) and never queued; whatever is queued was signed,
// under a well-formed delivery id, and decoded by its event's handler.
func FuzzWebhook(f *testing.F) {
	fuzzSeeds(f, func(event string, body []byte) {
		f.Add(body, event, "72d3162e-cc78-11e3-81ab-4c9367dc0958", true)
		f.Add(body, event, "d", false)
	})
	f.Fuzz(func(t *testing.T, body []byte, event, delivery string, signed bool) {
		rec := &recorder{t: t, allow: true}
		srv, err := New(Options{Secret: testSecret, MaxBodyBytes: 64 << 10, QueueSize: 4, Workers: 1,
			Handlers: Events(rec, rec), Logger: discardLogger()})
		if err != nil {
			t.Fatal(err)
		}
		// No workers: queued jobs stay in the queue, where they are checked.
		sig := Sign([]byte("not the secret"), body)
		if signed {
			sig = Sign(testSecret, body)
		}
		req := httptest.NewRequest(http.MethodPost, "/webhook", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(HeaderEvent, event)
		req.Header.Set(HeaderDelivery, delivery)
		req.Header.Set(HeaderSignature, sig)
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, req)
		queued := srv.Queued()
		if !signed {
			if w.Code != http.StatusUnauthorized && w.Code != http.StatusRequestEntityTooLarge {
				t.Errorf("wrongly signed delivery answered %d", w.Code)
			}
			if queued != 0 {
				t.Errorf("wrongly signed delivery queued")
			}
			return
		}
		switch w.Code {
		case http.StatusAccepted:
			if queued != 1 {
				t.Errorf("202 with %d queued", queued)
			}
			if len(delivery) > MaxDeliveryIDBytes || !deliveryIDRe.MatchString(delivery) {
				t.Errorf("queued under delivery id %q", delivery)
			}
			if event != "release" && event != "create" && event != "workflow_run" {
				t.Errorf("queued a %q delivery", event)
			}
		case http.StatusOK, http.StatusNoContent, http.StatusBadRequest, http.StatusRequestEntityTooLarge:
			if queued != 0 {
				t.Errorf("%d with %d queued", w.Code, queued)
			}
		default:
			t.Errorf("signed delivery answered %d", w.Code)
		}
	})
}

// FuzzAccept decodes arbitrary payloads with each event's handler: no input
// panics, and each answer is exactly one of a job, a reason to ignore, or a
// decoding error.
func FuzzAccept(f *testing.F) {
	fuzzSeeds(f, func(event string, body []byte) { f.Add(event, body) })
	f.Fuzz(func(t *testing.T, event string, body []byte) {
		rec := &recorder{t: t}
		for name, h := range Events(rec, rec) {
			srv, _ := New(Options{Secret: testSecret, MaxBodyBytes: 1, QueueSize: 1, Workers: 1, Logger: discardLogger()})
			job, reason, err := h.Accept(srv.delivery("d", name, body))
			switch {
			case err != nil && (job != nil || reason != ""):
				t.Errorf("%s: error %v with job %v, reason %q", name, err, job != nil, reason)
			case err == nil && (job == nil) == (reason == ""):
				t.Errorf("%s: job %v with reason %q", name, job != nil, reason)
			case job != nil && name != "release" && name != "create" && name != "workflow_run":
				t.Errorf("%s queued a job", name)
			}
		}
	})
}
