package webhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/bump"
	"github.com/inference-sim/accuracy-dashboard/internal/ghmodel"
	"github.com/inference-sim/accuracy-dashboard/internal/publish"
)

// countingCore is a Bumper and Publisher that counts the work it is asked
// to do per signed body, taking workTime per job (a stand-in for GitHub's
// latency).
type countingCore struct {
	recorder
	workTime time.Duration
	mu       sync.Mutex
	acted    map[string]int // sha256 of the run id or tag → calls
}

func (c *countingCore) act(key string) {
	time.Sleep(c.workTime)
	c.mu.Lock()
	c.acted[key]++
	c.mu.Unlock()
}

func (c *countingCore) BumpRelease(_ context.Context, rel ghmodel.Release, _ *slog.Logger) ([]bump.RepoOutcome, error) {
	c.act("release " + rel.Tag)
	return nil, nil
}

func (c *countingCore) PublishRun(_ context.Context, run publish.WorkflowRun, _ *slog.Logger) (publish.PublishResult, error) {
	c.act(fmt.Sprint("run ", run.ID))
	return publish.PublishResult{Outcome: publish.PublishPublished}, nil
}

// burstRequest is one delivery of the burst.
type burstRequest struct {
	kind     string // signed-work, signed-noise, forged, sha1-only, unsigned, oversized, replay
	event    string
	body     []byte
	header   http.Header
	work     string // the countingCore key a signed-work delivery acts on
	replayOf *burstRequest
	// pad, when set, is sent after body as that many spaces, streamed
	// (chunked, no Content-Length) so the burst itself does not hold it.
	pad int
}

// spaces is an endless reader of spaces.
type spaces struct{}

func (spaces) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

// reader returns the request body.
func (r *burstRequest) reader() io.Reader {
	if r.pad == 0 {
		return bytes.NewReader(r.body)
	}
	return io.MultiReader(bytes.NewReader(r.body), io.LimitReader(spaces{}, int64(r.pad)))
}

// burst builds 500 signed deliveries (450 that ask for no work: workflow_run
// requested, in_progress and completed events of other repositories and
// workflows, release created/edited/prereleased; 40 publish runs; 10
// releases of the harness) and 200 bad ones (40 each forged with another
// secret, signed with SHA-1 only, unsigned, over the body cap, and replays
// of signed work under a new delivery id), from real payloads.
func burst(b *testing.B, maxBody int) []*burstRequest {
	b.Helper()
	sign := func(r *burstRequest, id string) {
		r.header = http.Header{}
		r.header.Set("Content-Type", "application/json")
		r.header.Set(HeaderEvent, r.event)
		r.header.Set(HeaderDelivery, id)
		r.header.Set(HeaderSignature, Sign(testSecret, r.body))
	}
	var out []*burstRequest
	n := 0
	id := func() string { n++; return fmt.Sprintf("%08x-0000-4000-8000-%012x", n, n) }
	add := func(kind, event string, body []byte, work string) *burstRequest {
		r := &burstRequest{kind: kind, event: event, body: body, work: work}
		sign(r, id())
		out = append(out, r)
		return r
	}
	rel := example(b, "release", "published", nil)
	var work []*burstRequest
	for i := range 40 {
		work = append(work, add("signed-work", "workflow_run", runOf(b, "completed", testPublishRepo.String(), testPublishWorkflow, 5000+i), fmt.Sprint("run ", 5000+i)))
	}
	for i := range 10 {
		tag := fmt.Sprintf("v0.1.%d", i)
		body := bytes.Replace(rel, []byte(`"tag_name":"v0.0.1"`), []byte(`"tag_name":"`+tag+`"`), 1)
		work = append(work, add("signed-work", "release", body, "release "+tag))
	}
	noiseKinds := []func(i int) (string, []byte){
		func(i int) (string, []byte) {
			return "workflow_run", runOf(b, "requested", "other/repo", testPublishWorkflow, 9000+i)
		},
		func(i int) (string, []byte) {
			return "workflow_run", runOf(b, "in_progress", "other/repo", testPublishWorkflow, 9000+i)
		},
		func(i int) (string, []byte) {
			return "workflow_run", runOf(b, "completed", testPublishRepo.String(), ".github/workflows/ci.yml", 9000+i)
		},
		func(i int) (string, []byte) {
			return "workflow_run", runOf(b, "completed", "other/repo", testPublishWorkflow, 9000+i)
		},
		func(i int) (string, []byte) { return "release", example(b, "release", "created", nil) },
		func(i int) (string, []byte) { return "release", example(b, "release", "edited", nil) },
		func(i int) (string, []byte) { return "release", example(b, "release", "prereleased", nil) },
	}
	for i := range 450 {
		event, body := noiseKinds[i%len(noiseKinds)](i)
		add("signed-noise", event, body, "")
	}
	for i := range 40 {
		r := add("forged", "workflow_run", runOf(b, "completed", testPublishRepo.String(), testPublishWorkflow, 7000+i), "")
		r.header.Set(HeaderSignature, Sign([]byte("a guessed secret"), r.body))
		r = add("sha1-only", "workflow_run", runOf(b, "completed", testPublishRepo.String(), testPublishWorkflow, 7100+i), "")
		r.header.Del(HeaderSignature)
		mac := hmac.New(sha1.New, testSecret)
		mac.Write(r.body)
		r.header.Set("X-Hub-Signature", "sha1="+hex.EncodeToString(mac.Sum(nil)))
		r = add("unsigned", "release", rel, "")
		r.header.Del(HeaderSignature)
		// Signed with the secret, but over the cap.
		r = add("oversized", "workflow_run", runOf(b, "completed", testPublishRepo.String(), testPublishWorkflow, 7200+i), "")
		r.pad = maxBody
		mac = hmac.New(sha256.New, testSecret)
		io.Copy(mac, r.reader())
		r.header.Set(HeaderSignature, "sha256="+hex.EncodeToString(mac.Sum(nil)))
		orig := work[i]
		r = &burstRequest{kind: "replay", event: orig.event, body: orig.body, replayOf: orig}
		sign(r, id())
		out = append(out, r)
	}
	return out
}

// BenchmarkWebhookBurst sends, per iteration, a burst of 500 signed and 200
// bad deliveries (see burst) from 32 concurrent senders on 8 client
// addresses (as GitHub's deliveries come from many) to a fresh server on a
// real loopback listener with the bot's http.Server settings, connection
// bounds and default limits (1 MiB bodies, 8 read slots, 4 per address, a
// queue of 64, 2 workers; each job takes 2 ms). A replay is sent after its original is acknowledged. It
// reports the acknowledgement latency (p50, p99, over every delivery), the
// peak growth of the heap in use over its size before the burst (senders
// and server together: the process is one) and the peak goroutine count
// (32 senders and their connections included), how many signed
// deliveries were refused, and how many bad deliveries were acted on; it
// fails when a bad delivery was acted on, a signed one was refused for any
// reason but a full queue or busy read slots, or work was lost.
func BenchmarkWebhookBurst(b *testing.B) {
	const maxBody = 1 << 20
	reqs := burst(b, maxBody)
	var lat []time.Duration
	var heapGrowth uint64
	peakG, signedRefused, badActed := 0, 0, 0
	b.ResetTimer()
	for range b.N {
		core := &countingCore{recorder: recorder{t: b}, workTime: 2 * time.Millisecond, acted: map[string]int{}}
		var handled atomic.Int64
		srv, err := New(Options{Secret: testSecret, MaxBodyBytes: maxBody, QueueSize: 64, Workers: 2,
			Handlers: Events(core, core), Logger: discardLogger(),
			Done: func(Delivery, error) { handled.Add(1) }})
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		srv.Start(ctx)
		ts := httptest.NewUnstartedServer(srv)
		ts.Config = srv.HTTPServer()
		ts.Listener = srv.Limit(ts.Listener)
		ts.Start()
		// GitHub delivers from many addresses: the senders use eight.
		var clients []*http.Client
		for a := range 8 {
			clients = append(clients, &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 32,
				DialContext: dialer(fmt.Sprintf("127.0.0.%d", 2+a)).DialContext}})
		}

		stop := make(chan struct{})
		sampled := make(chan struct{})
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		go func() {
			defer close(sampled)
			var ms runtime.MemStats
			for {
				runtime.ReadMemStats(&ms)
				if ms.HeapInuse > before.HeapInuse {
					heapGrowth = max(heapGrowth, ms.HeapInuse-before.HeapInuse)
				}
				peakG = max(peakG, runtime.NumGoroutine())
				select {
				case <-stop:
					return
				case <-time.After(2 * time.Millisecond):
				}
			}
		}()

		order := rand.Perm(len(reqs))
		var next atomic.Int64
		var mu sync.Mutex
		codes := map[*burstRequest]int{}
		acked := map[*burstRequest]chan struct{}{}
		for _, r := range reqs {
			acked[r] = make(chan struct{})
		}
		send := func(client *http.Client, r *burstRequest) {
			if r.replayOf != nil {
				<-acked[r.replayOf]
			}
			req, _ := http.NewRequest(http.MethodPost, ts.URL+"/webhook", r.reader())
			req.Header = r.header.Clone()
			start := time.Now()
			resp, err := client.Do(req)
			d := time.Since(start)
			code := 0
			if err == nil {
				code = resp.StatusCode
				resp.Body.Close()
			}
			mu.Lock()
			lat = append(lat, d)
			codes[r] = code
			mu.Unlock()
			close(acked[r])
		}
		var wg sync.WaitGroup
		// Replays go last in each sender's order, so that no sender waits
		// on an original another sender has not reached.
		slices.SortStableFunc(order, func(a, c int) int {
			return boolInt(reqs[a].replayOf != nil) - boolInt(reqs[c].replayOf != nil)
		})
		for k := range 32 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					i := next.Add(1) - 1
					if int(i) >= len(order) {
						return
					}
					send(clients[k%len(clients)], reqs[order[i]])
				}
			}()
		}
		wg.Wait()
		// Let the queued work finish.
		wantWork := 0
		for _, r := range reqs {
			if r.kind == "signed-work" && codes[r] == http.StatusAccepted {
				wantWork++
			}
		}
		deadline := time.Now().Add(time.Minute)
		for handled.Load() < int64(wantWork) && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		close(stop)
		<-sampled
		ts.Close()
		srv.Close()
		cancel()

		for _, r := range reqs {
			code := codes[r]
			switch r.kind {
			case "signed-work":
				if code != http.StatusAccepted && code != http.StatusServiceUnavailable {
					b.Errorf("signed work delivery answered %d", code)
				}
				if code == http.StatusServiceUnavailable {
					signedRefused++
				}
				if core.acted[r.work] > 1 {
					b.Errorf("%s acted on %d times", r.work, core.acted[r.work])
				}
			case "signed-noise":
				if code == http.StatusServiceUnavailable {
					signedRefused++
				} else if code != http.StatusOK {
					b.Errorf("signed noise answered %d, want 200 ignored", code)
				}
			case "replay":
				// A replay whose original was refused is the first copy
				// the server sees; acting on it once is no duplicate.
				if code != http.StatusOK && codes[r.replayOf] != http.StatusServiceUnavailable {
					b.Errorf("replay answered %d, want 200 duplicate", code)
				}
				if code == http.StatusAccepted {
					wantWork++
				}
			default:
				if code == http.StatusAccepted || code == http.StatusOK {
					badActed++
					b.Errorf("%s delivery answered %d", r.kind, code)
				}
			}
		}
		total := 0
		for _, n := range core.acted {
			total += n
		}
		if total < wantWork {
			b.Errorf("%d jobs acknowledged, %d done: work lost", wantWork, total)
		}
		badActed += max(0, total-wantWork)
	}
	b.StopTimer()
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.50), "p50-ack-ms")
	b.ReportMetric(pct(0.99), "p99-ack-ms")
	b.ReportMetric(float64(heapGrowth)/(1<<20), "peak-heap-growth-MiB")
	b.ReportMetric(float64(peakG), "peak-goroutines")
	b.ReportMetric(float64(signedRefused)/float64(b.N), "signed-refused/burst")
	b.ReportMetric(float64(badActed)/float64(b.N), "bad-acted-on/burst")
	if badActed != 0 {
		b.Fatalf("%d bad deliveries acted on", badActed)
	}
}

func boolInt(v bool) int {
	if v {
		return 1
	}
	return 0
}
