package harness

import (
	"bufio"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"strconv"

	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
	"github.com/inference-sim/accuracy-dashboard/internal/workloadspec"
)

// Request is one request the benchmark client sent at a point.
type Request struct {
	// ID is the request's index in the trace, 0-based.
	ID int
	// Session and Round place a closed-loop request: session "s<k>", its
	// round-th request. Session is "" for open-loop requests.
	Session string
	Round   int
	// PrefixGroup names the shared prefix the request starts with ("" for
	// none) and PrefixLength its length in tokens.
	PrefixGroup  string
	PrefixLength int
	// InputTokens is the whole prompt, prefix included: what the client
	// sent and what the simulator must prefill. (A BLIS trace's
	// input_tokens column is the part after the prefix: WriteTrace writes
	// InputTokens − PrefixLength.)
	InputTokens  int
	OutputTokens int
	// ArrivalUs is when an open-loop request is sent; 0 for closed loop.
	ArrivalUs int64
	// Warmup requests are sent but excluded from the means, as the client does.
	Warmup bool
}

// Trace is the workload of one point, ready to write as a BLIS trace.
type Trace struct {
	ClosedLoop bool
	// Concurrency is the number of closed-loop sessions (0 for open loop).
	Concurrency int
	Requests    []Request
	// HorizonUs is the simulated time limit handed to the simulator.
	HorizonUs int64
	// Lengths, for a closed loop, are the distributions the client drew
	// Requests' lengths from (nil for open loop): what a simulator's own
	// closed-loop client is told to draw from (DriverRunClosedLoop).
	Lengths *Lengths
	// Seed is the point's seed (the unit's seed and the point's load),
	// handed to a simulator that draws the requests itself.
	Seed int64
}

// Lengths are the uniform integer ranges input and output lengths are
// drawn from, bounds included.
type Lengths struct {
	InputMin, InputMax   int
	OutputMin, OutputMax int
}

// Warmups returns how many requests are warm-ups (sent first, excluded).
func (t *Trace) Warmups() int { return len(t.Requests) - t.Measured() }

// Measured returns how many requests count for the means (not warm-ups).
func (t *Trace) Measured() int {
	n := 0
	for _, r := range t.Requests {
		if !r.Warmup {
			n++
		}
	}
	return n
}

// Horizon policy: closed-loop follow-up rounds carry a 300 s deadline in
// BLIS, so no round can legitimately outlast it; open-loop requests get ten
// minutes past the last arrival to drain.
const (
	roundDeadlineUs = 300_000_000
	drainUs         = 600_000_000
)

// Generate regenerates exactly the requests the benchmark client sent at
// point i of u. The same unit and point always give the same requests: the
// random lengths come from a generator seeded with the unit's seed and the
// point's load.
func Generate(u *ledger.Unit, i int) (Trace, error) {
	p := u.Points[i]
	h := fnv.New64a()
	h.Write([]byte(p.Load.Key()))
	loadHash := h.Sum64()
	rng := rand.New(rand.NewPCG(u.Workload.Seed, loadHash))
	var t Trace
	var err error
	switch u.Workload.Client {
	case ledger.ClientInferenceX:
		t, err = inferenceX(u.Workload.InferenceX, p.Load.Concurrency, rng)
	case ledger.ClientInferencePerf:
		t, err = inferencePerf(u.Workload.InferencePerf, u.Workload.Seed, p.Load.Rate, p.Load.DurationS)
	default:
		return Trace{}, fmt.Errorf("unit %s: no request generator for client %q", u.ID, u.Workload.Client)
	}
	// The simulator's --seed is a signed 64-bit integer: keep 63 bits.
	t.Seed = int64((u.Workload.Seed ^ loadHash) & math.MaxInt64)
	return t, err
}

// inferenceX: benchmark_serving.py --dataset-name random with
// --random-range-ratio r: input and output lengths drawn independently and
// uniformly from [floor(r·L), L]; --num-prompts P·C behind a semaphore of C
// (closed loop: C sessions whose next round starts when the previous one
// completes), after W·C warm-up requests under the same semaphore.
func inferenceX(w *ledger.InferenceXWorkload, c int, rng *rand.Rand) (Trace, error) {
	if w == nil || c <= 0 {
		return Trace{}, fmt.Errorf("inferencex point needs a workload and a positive concurrency")
	}
	low := func(l int) int {
		return max(1, int(math.Floor(w.RangeRatio*float64(l))))
	}
	draw := func(l int) int {
		lo := low(l)
		return lo + rng.IntN(l-lo+1)
	}
	warm := w.WarmupsPerConcurrency * c
	total := warm + w.PromptsPerConcurrency*c
	t := Trace{ClosedLoop: true, Concurrency: c,
		Lengths: &Lengths{InputMin: low(w.InputLen), InputMax: w.InputLen, OutputMin: low(w.OutputLen), OutputMax: w.OutputLen}}
	for k := 0; k < total; k++ {
		in := draw(w.InputLen)
		out := draw(w.OutputLen)
		t.Requests = append(t.Requests, Request{
			ID: k, Session: "s" + strconv.Itoa(k%c), Round: k / c,
			InputTokens: in, OutputTokens: out, Warmup: k < warm,
		})
	}
	rounds := (total + c - 1) / c
	t.HorizonUs = int64(rounds+1) * roundDeadlineUs
	return t, nil
}

// inferencePerf: a constant load sends rate·duration requests evenly spaced
// at 1/rate s. The shared_prefix data set of the client version that ran
// (docs/HARNESS.md, "Replay") builds G·U fixed prompts once per run (G
// groups of U prompts; a group's prompts start with one system prompt of
// system_prompt_len tokens, each then has its own question_len-token
// question), shuffles them and cycles through them: request k sends prompt
// order[k mod G·U], so every full prompt repeats every G·U requests and a
// prefix cache sees it again. The client's shuffle was not seeded; the
// replay draws one order per unit from the unit's seed (the same for every
// stage of the run, as the one client was). With ignore_eos every answer is
// output_len tokens.
//
// Each prompt is its own prefix group whose prefix is the whole prompt, so
// the simulator gives every repeat the same tokens (BLIS draws a prefix
// group's tokens once and the rest of a prompt afresh per request).
func inferencePerf(w *ledger.InferencePerfWorkload, seed uint64, rate, duration float64) (Trace, error) {
	if w == nil || !(rate > 0) || !(duration > 0) {
		return Trace{}, fmt.Errorf("inference-perf point needs a workload, a positive rate and duration")
	}
	n := int(math.Round(rate * duration))
	order := PromptOrder(w, seed)
	if len(order) == 0 {
		return Trace{}, fmt.Errorf("inference-perf point needs at least one group and one prompt per group")
	}
	prompt := w.SystemPromptLen + w.QuestionLen
	t := Trace{}
	var last int64
	for k := 0; k < n; k++ {
		p := order[k%len(order)]
		arr := int64(math.Round(float64(k) / rate * 1e6))
		t.Requests = append(t.Requests, Request{
			ID: k, PrefixGroup: PromptID(w, p), PrefixLength: prompt,
			InputTokens: prompt, OutputTokens: w.OutputLen, ArrivalUs: arr,
		})
		last = arr
	}
	t.HorizonUs = last + drainUs
	return t, nil
}

// PromptOrder is the order in which an inference-perf unit's client cycles
// through its G·U prompts (prompt p is prompt p mod U of group p / U): a
// permutation drawn from the unit's seed alone, so every stage of a run
// sends the prompts in the same order.
func PromptOrder(w *ledger.InferencePerfWorkload, seed uint64) []int {
	n := w.NumUniqueSystemPrompts * w.NumUsersPerSystemPrompt
	if n <= 0 {
		return nil
	}
	return rand.New(rand.NewPCG(seed, promptOrderStream)).Perm(n)
}

// promptOrderStream separates the prompt order's random stream from the
// per-point streams of the lengths.
const promptOrderStream = 0x70726f6d70747321

// PromptID names prompt p of an inference-perf unit: "g<group>-p<prompt>".
func PromptID(w *ledger.InferencePerfWorkload, p int) string {
	u := w.NumUsersPerSystemPrompt
	return "g" + strconv.Itoa(p/u) + "-p" + strconv.Itoa(p%u)
}

// traceColumns are the 27 positional columns of a BLIS trace v2 data file.
var traceColumns = []string{"request_id", "client_id", "tenant_id", "slo_class", "session_id", "round_index", "prefix_group", "prefix_length", "streaming", "input_tokens", "output_tokens", "text_tokens", "image_tokens", "audio_tokens", "video_tokens", "reason_ratio", "model", "deadline_us", "server_input_tokens", "arrival_time_us", "send_time_us", "first_chunk_time_us", "last_chunk_time_us", "num_chunks", "status", "error_message", "finish_reason"}

// WriteTrace writes t as a BLIS trace v2: a header YAML and a data CSV.
// BLIS reads a row's input_tokens as the tokens after the prefix and puts
// the prefix group's prefix_length tokens in front of them (its TraceV2
// contract: "InputTokens records the suffix-only count"), so a request's
// row carries InputTokens − PrefixLength; a prefix longer than the prompt
// is refused.
func WriteTrace(t Trace, headerPath, dataPath string) error {
	for _, r := range t.Requests {
		if r.PrefixLength < 0 || r.PrefixLength > r.InputTokens || (r.PrefixLength > 0 && r.PrefixGroup == "") {
			return fmt.Errorf("request %d: prefix of %d tokens (group %q) does not fit its %d-token prompt", r.ID, r.PrefixLength, r.PrefixGroup, r.InputTokens)
		}
	}
	header := "trace_version: 2\ntime_unit: microseconds\nmode: generated\nwarm_up_requests: 0\n"
	if err := os.WriteFile(headerPath, []byte(header), 0o644); err != nil {
		return err
	}
	f, err := os.Create(dataPath)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for k, c := range traceColumns {
		if k > 0 {
			w.WriteByte(',')
		}
		w.WriteString(c)
	}
	w.WriteByte('\n')
	for _, r := range t.Requests {
		// BLIS parses round_index as an integer on every row: open-loop rows
		// carry 0.
		round := strconv.Itoa(r.Round)
		in, out := strconv.Itoa(r.InputTokens-r.PrefixLength), strconv.Itoa(r.OutputTokens)
		fields := []string{
			strconv.Itoa(r.ID), "client0", "", "", r.Session, round, r.PrefixGroup, strconv.Itoa(r.PrefixLength), "true",
			in, out, in, "0", "0", "0", "0", "", "0", "0", strconv.FormatInt(r.ArrivalUs, 10), "0", "0", "0", "0", "", "", "",
		}
		for k, v := range fields {
			if k > 0 {
				w.WriteByte(',')
			}
			w.WriteString(v)
		}
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// closedLoopClientID names the one client of a closed-loop specification;
// BLIS names its sessions after it ("concurrency_<id>_user_<k>").
const closedLoopClientID = "client"

// WriteClosedLoopSpec writes the workload specification of closed-loop trace
// t: one client of t.Concurrency concurrent users with no think time, input
// and output lengths uniform over t.Lengths, len(t.Requests) requests in all
// (warm-ups included), t.Seed and t.HorizonUs.
func WriteClosedLoopSpec(t Trace, path string) error {
	if !t.ClosedLoop || t.Lengths == nil || t.Concurrency <= 0 {
		return fmt.Errorf("workload spec: not a closed-loop trace with length distributions")
	}
	l := t.Lengths
	raw, err := workloadspec.Encode(workloadspec.Spec{
		Seed: t.Seed, Category: workloadspec.CategoryLanguage,
		Clients: []workloadspec.Client{{
			ID: closedLoopClientID, Concurrency: t.Concurrency,
			InputDist:  workloadspec.UniformEmpirical(l.InputMin, l.InputMax),
			OutputDist: workloadspec.UniformEmpirical(l.OutputMin, l.OutputMax),
			Streaming:  true,
		}},
		NumRequests: len(t.Requests),
		Horizon:     t.HorizonUs,
	})
	if err != nil {
		return err
	}
	return os.WriteFile(path, raw, 0o644)
}
