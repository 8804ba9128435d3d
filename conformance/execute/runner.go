package execute

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/check"
	"github.com/gwconform/gwconform/conformance/pace"
	"github.com/gwconform/gwconform/conformance/plan"
	"github.com/gwconform/gwconform/conformance/record"
	"github.com/gwconform/gwconform/conformance/redact"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
	"github.com/gwconform/gwconform/schemas"
)

// Runner executes planned calls against a target and checks the answers.
type Runner struct {
	Catalog *catalog.Catalog
	Schemas *schemas.Set
	Target  plan.Target
	Options Options
	// Settled are results the run already has (run --resume keeps them): a
	// negative call whose control is among them, and not in the calls
	// made, is decided by that result.
	Settled []results.Result

	gateMu sync.Mutex
	shared *gate // made on first use (gate)
}

// Run executes every call, at most Options.Concurrency at once per key, and
// hands each result to emit as soon as it is final. emit is called from one
// goroutine at a time. When ctx is cancelled, calls not yet started are not
// reported and calls in flight end with status error.
//
// A negative call's result is final only once its control's is
// (results.Settle): the negative's goroutine frees its key's slot, waits
// for the control (which may need that slot) to be reported, and only then
// reports. So a line of results.jsonl never changes once written, a
// control's line comes before its negatives', and the plan's order
// (controls first) keeps the wait short. A negative whose control the
// interrupt left unstarted is reported cancelled, for --resume to make again.
func (r *Runner) Run(ctx context.Context, calls []plan.Call, emit func(results.Result)) {
	o := r.Options.WithDefaults()
	client := clientOf(r.Target)
	g := r.gate(o)
	var emitMu sync.Mutex
	report := func(res results.Result) {
		emitMu.Lock()
		defer emitMu.Unlock()
		emit(res)
	}
	book := newControlBook(calls, r.Settled)
	// Skips first, then each key's calls in plan order from a queue of its
	// own: a key whose slots are all taken (a slow or rate-limited
	// family) holds up none of the others.
	queues := map[catalog.KeyKind][]plan.Call{}
	var keys []catalog.KeyKind
	for _, call := range calls {
		if call.Skip != nil {
			res := r.fitToWrite(call.Skipped())
			report(res)
			book.fill(call.CaseModel(), res)
			continue
		}
		k := call.Case.Key
		if queues[k] == nil {
			keys = append(keys, k)
		}
		queues[k] = append(queues[k], call)
	}
	var wg sync.WaitGroup
	for _, k := range keys {
		queue, sem := queues[k], g.slots(k)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, call := range queue {
				select {
				case sem <- struct{}{}:
				case <-ctx.Done():
					book.abandon(queue[i:])
					return
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					res := r.makeCall(ctx, client, o, g, call)
					<-sem
					res = book.settle(call, res)
					report(res)
					book.fill(call.CaseModel(), res) // after its line: a control's precedes its negatives'
				}()
			}
		}()
	}
	wg.Wait()
}

// RunOne makes one call when its key has a free slot, paced as Run's
// calls are (go test's subtests share the runner's slots and pacer), and
// returns its redacted result. For a negative call that is its own
// result, not yet decided by its control's (results.Settle): go test's Run
// does that.
func (r *Runner) RunOne(ctx context.Context, call plan.Call) results.Result {
	if call.Skip != nil {
		return r.fitToWrite(call.Skipped())
	}
	o := r.Options.WithDefaults()
	g := r.gate(o)
	sem := g.slots(call.Case.Key)
	select {
	case sem <- struct{}{}:
	case <-ctx.Done():
		return call.Result(vocab.StatusError, vocab.Reason{Check: "transport", Message: ctx.Err().Error()})
	}
	res := r.makeCall(ctx, clientOf(r.Target), o, g, call)
	<-sem
	return res
}

// makeCall makes one call in flight (Runner.InFlight names it meanwhile),
// paced by the gate, and returns its result fit to write (fitToWrite).
func (r *Runner) makeCall(ctx context.Context, client *http.Client, o Options, g *gate, call plan.Call) results.Result {
	ctx, landed := g.flights.begin(ctx, call)
	res := r.runLogged(ctx, client, o, g.pacer, call)
	landed()
	return r.fitToWrite(res)
}

// fitToWrite is a result as every output may show it: the exact secrets
// redacted (a gateway may echo a key, a rejected key's answer too), base64
// in its reasons shortened.
func (r *Runner) fitToWrite(res results.Result) results.Result {
	redact.Result(&res, r.Target.Secrets())
	res.ShortenReasons()
	return res
}

// runCall makes one call, paced by p, and checks it.
func (r *Runner) runCall(ctx context.Context, client *http.Client, o Options, p *pace.Pacer, call plan.Call) results.Result {
	c := &callRun{r: r, ctx: ctx, client: client, o: o, p: p, call: call, requested: call.SentModel()}
	c.res = call.Result(vocab.StatusPass)
	answered := c.send()
	if answered {
		c.judge()
	}
	c.close(answered)
	return c.res
}

// callRun is one call being made: what its steps share.
type callRun struct {
	r      *Runner
	ctx    context.Context
	client *http.Client
	o      Options
	p      *pace.Pacer
	call   plan.Call
	res    results.Result
	// sent are the exchanges of the shapes tried, the answered one last (ex).
	sent []*exchange
	ex   *exchange
	// judged is the shape answered, and requested the model its request
	// names: the rules of a kind read the request (max_tokens, n, size)
	// and compare "model used" with the model requested.
	judged    *catalog.Case
	requested string
	// declined are the reasons of the shapes the gateway declined before
	// the one judged.
	declined []vocab.Reason
}

// send renders and sends the case, or its variants in turn until one is
// accepted. It reports whether there is an answer to judge; if not, the
// result says why.
func (c *callRun) send() bool {
	cs := c.call.Case
	for i, shape := range shapes(cs) {
		rendered, err := c.r.Catalog.Render(shape.cs, c.call.Model, c.env())
		if err != nil {
			c.res.Status = vocab.StatusError
			c.res.Reasons = []vocab.Reason{{Check: "render", Message: err.Error()}}
			return false
		}
		c.res.Request = requestSummary(rendered)
		c.res.Request.Curl = resultCurl(c.r.Target, shape.cs, rendered)
		c.ex, err = send(c.ctx, c.client, c.o, c.p, c.r.Target, shape.cs, rendered)
		c.sent = append(c.sent, c.ex)
		c.res.Attempts = c.ex.attempts
		tally(&c.res, c.ex, plan.EstimateCost(shape.cs).Units)
		c.res.TTFBMS = c.ex.ttfb.Milliseconds()
		if err != nil {
			c.unanswered(err)
			return false
		}
		code := c.ex.resp.StatusCode
		c.judged = shape.cs
		if rendered.Header.Get("Content-Type") == "application/json" {
			if m := gjson.GetBytes(rendered.Body, "model"); m.Type == gjson.String {
				c.requested = m.Str
			}
		}
		last := shape.name == "" || i == len(cs.Variants)-1
		if !last && cs.Accepts(code) && c.refusedInBody(shape.name) {
			continue // a 200-class refusal of this shape: the next one is tried
		}
		if last || cs.Accepts(code) || code == http.StatusTooManyRequests {
			if cs.Accepts(code) {
				c.res.Variant = shape.name
			}
			return true
		}
		c.decline(shape.name, nil)
	}
	return true // not reached: the last shape ends the loop
}

// refusalPeekLimit bounds what is read of a shape's 200-class answer to
// tell a refusal: an error body is small, a longer one is an answer.
const refusalPeekLimit = 64 << 10

// refusedInBody reports whether a 200-class answer to a shape refuses it
// as section 7 allows, with an error member (2.2: "a client must treat it
// as failure"), and then notes the shape declined. An answer that is no
// such refusal stays whole for judging: what was read of it is put back
// before the rest of its body.
func (c *callRun) refusedInBody(name string) bool {
	resp := c.ex.resp
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return false // a stream is read as it comes, never ahead
	}
	head, err := io.ReadAll(io.LimitReader(resp.Body, refusalPeekLimit))
	if err == nil && gjson.ValidBytes(head) {
		if e := gjson.GetBytes(head, "error"); e.Exists() && e.Type != gjson.Null {
			resp.Body.Close()
			c.decline(name, head)
			return true
		}
	}
	rest := io.Reader(resp.Body)
	if err != nil {
		rest = failedReader{err} // the read error comes back where it came
	}
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), rest), resp.Body}
	return false
}

// env is what the call's requests take from outside the catalog: the
// public image URL, and the gateway's names for the spec's ids as its key
// sends them.
func (c *callRun) env() catalog.Env {
	kind := c.call.Case.Key
	return catalog.Env{PublicImageURL: c.r.Target.PublicImageURL,
		ModelName: func(id string) string {
			if id == c.call.Model {
				return c.call.SentModel() // as planned: a probe's new model as its list names it
			}
			return c.r.Target.Names.Gateway(kind, id)
		}}
}

// unanswered records why a send got no answer to judge.
func (c *callRun) unanswered(err error) {
	res := &c.res
	var skip *record.SkipError
	switch {
	case errors.As(err, &skip): // a replay with nothing to answer: no verdict, nothing spent
		res.Status, res.Reasons = vocab.StatusSkip, []vocab.Reason{skip.Reason}
		res.Attempts, res.Requests, res.Refused, res.CostUnits, res.TTFBMS = 0, 0, 0, 0, 0
	case errors.Is(err, pace.ErrOverBudget): // still limited after --max-wait
		res.Status = vocab.StatusThrottled
		res.Reasons = append(c.declined, vocab.Reason{Check: "rate_limit", Expected: fmt.Sprintf("a send within %s (--max-wait)", c.o.MaxWait),
			Actual: "still limited", Message: err.Error()})
	default:
		res.Status, res.Reasons = transportFailure(attemptContext(c.ctx, c.ex), err, c.o)
		res.Reasons = append(c.declined, res.Reasons...)
		if r, ok := c.ex.retriesReason(); ok {
			res.Reasons = append(res.Reasons, r)
		}
	}
}

// failedReader fails every read with err.
type failedReader struct{ err error }

func (r failedReader) Read([]byte) (int, error) { return 0, r.err }

// decline notes a shape the spec does not show, declined, before the next
// one is tried; body is what was read of the answer already (nil: read
// here).
func (c *callRun) decline(name string, body []byte) {
	resp := c.ex.resp
	if body == nil {
		body, _ = check.ReadBody(resp.Body, 4<<10)
		resp.Body.Close()
	}
	// The shape's answer is read: its slot of the key goes back before the
	// next shape asks for one, so that a call holds one slot at a time (at
	// --concurrency 1 the next shape would wait on this one for ever).
	c.ex.finish()
	body = body[:min(len(body), 4<<10)]
	c.declined = append(c.declined, vocab.Reason{Check: "variant", Where: name, Expected: c.call.Case.WantStatus(),
		Actual: fmt.Sprintf("%d %s", resp.StatusCode, strings.Join(strings.Fields(string(body)), " ")), Message: "the gateway declined this shape"})
}

// judge checks the answer (check.Answer) with what it compares with, then
// says what cut it short, if anything, and how often it was asked.
func (c *callRun) judge() {
	cs, ex, res := c.call.Case, c.ex, &c.res
	res.HTTPStatus = ex.resp.StatusCode
	sent, received := ex.started, ex.started.Add(ex.ttfb)
	if t, ok := record.TimesOf(c.ctx, ex.resp); ok { // a replay: the recorded exchange's own times
		sent, received = t.Sent, t.Received
		res.TTFBMS = received.Sub(sent).Milliseconds()
	}
	var others map[catalog.KeyKind][]string
	if len(cs.Expect.DiffersFrom) > 0 && cs.Accepts(res.HTTPStatus) {
		lists, st, reasons := c.r.otherLists(c.ctx, c.client, c.o, c.p, cs.Expect.DiffersFrom, res)
		if st != "" {
			res.Status, res.Reasons = st, reasons
			return
		}
		others = lists
	}
	reasons := check.Answer(&check.Exchange{Case: cs, Request: &c.judged.Request, Model: c.requested, Rows: c.r.Catalog.Spec.RowsOf(cs.Refs),
		Schemas: c.r.Schemas, Response: ex.resp, Sent: sent, Received: received, Started: ex.started, Others: others,
		Limits: c.o.Limits}, res)
	if len(reasons) > 0 {
		reasons = append(c.declined, reasons...)
	}
	res.Reasons = reasons
	res.Status = check.Status(cs, ex.resp.StatusCode, reasons)
	if len(reasons) > 0 {
		c.sayWhatCut()
	}
	// Passed only when asked again after a 5xx or a lost connection;
	// waiting on the rate limit is no flakiness.
	res.Flaky = res.Status == vocab.StatusPass && len(ex.retried) > 0
	if r, ok := ex.retriesReason(); ok && res.Status != vocab.StatusPass {
		res.Reasons = append(res.Reasons, r)
	}
	if res.Status != vocab.StatusPass {
		res.RequestID = requestID(ex.resp.Header)
	}
}

// sayWhatCut puts first, on a failed answer, the stall, the timeout or
// the cancelled run that cut its body or stream; only the spec's own
// limit makes it a verdict.
func (c *callRun) sayWhatCut() {
	var cut error
	if s := c.ex.stalled(); s != nil {
		cut = s
	} else if err := c.ex.ctx.Err(); err != nil {
		cut = err
	}
	if cut == nil {
		return
	}
	st, rs := transportFailure(c.ex.ctx, cut, c.o)
	c.res.Reasons = append(rs, c.res.Reasons...)
	if st == vocab.StatusError {
		c.res.Status = st
	}
}

// close releases the answer judged and every attempt, then times the call: a
// request's duration counts from its send (waits on the rate limit before
// it are reported apart), and a call the run's interrupt cut (not a
// timeout) is marked for run --resume to make again.
func (c *callRun) close(answered bool) {
	if answered {
		c.ex.resp.Body.Close()
	}
	for i := len(c.sent) - 1; i >= 0; i-- {
		c.sent[i].finish()
	}
	if c.ex != nil && !c.ex.started.IsZero() {
		c.res.DurationMS = time.Since(c.ex.started).Milliseconds()
	}
	c.res.Cancelled = c.res.Status == vocab.StatusError && errors.Is(c.ctx.Err(), context.Canceled)
}

// attemptContext is the context of the attempt that ended the call, whose
// timeout counts from its send; ctx when no attempt was made.
func attemptContext(ctx context.Context, ex *exchange) context.Context {
	if ex != nil && ex.ctx != nil {
		return ex.ctx
	}
	return ctx
}

// gate is what the calls of one runner share: a slot per call in flight
// per key (Options.Concurrency) and the pacer of the gateway's limit.
type gate struct {
	pacer   *pace.Pacer // nil for a replay: nothing is sent
	flights flights
	mu      sync.Mutex
	sems    map[catalog.KeyKind]chan struct{}
	n       int
}

// slots is the key's semaphore.
func (g *gate) slots(k catalog.KeyKind) chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.sems[k] == nil {
		g.sems[k] = make(chan struct{}, g.n)
	}
	return g.sems[k]
}

// gate returns the runner's gate, made on first use.
func (r *Runner) gate(o Options) *gate {
	r.gateMu.Lock()
	defer r.gateMu.Unlock()
	if r.shared == nil {
		r.shared = &gate{sems: map[catalog.KeyKind]chan struct{}{}, n: o.Concurrency}
		if !o.Unpaced {
			r.shared.pacer = pace.New(pace.Options{Concurrency: o.Concurrency, BareWait: o.RetryWait, MaxBareWait: o.MaxRetryWait})
		}
	}
	return r.shared
}

// madeGate is the runner's gate, nil before its first call.
func (r *Runner) madeGate() *gate {
	r.gateMu.Lock()
	defer r.gateMu.Unlock()
	return r.shared
}

// InFlight describes the calls in flight for longer than d, longest
// first, with their phase, for the progress line.
func (r *Runner) InFlight(d time.Duration) []string {
	g := r.madeGate()
	if g == nil {
		return nil
	}
	return g.flights.longer(d)
}

// Waiting describes the keys and families that wait on the gateway's rate
// limit now, for the progress line; empty when none does.
func (r *Runner) Waiting() []string {
	g := r.madeGate()
	if g == nil || g.pacer == nil {
		return nil
	}
	return g.pacer.Waiting()
}

// shape is one body a call may send: the case itself, or one of its variants.
type shape struct {
	name string // "" for the case itself
	cs   *catalog.Case
}

func shapes(cs *catalog.Case) []shape {
	if len(cs.Variants) == 0 {
		return []shape{{cs: cs}}
	}
	out := make([]shape, len(cs.Variants))
	for i, v := range cs.Variants {
		out[i] = shape{name: v.Name, cs: cs.WithVariant(v)}
	}
	return out
}

// transportFailure classifies an error before (or while reading) a usable
// response. Only a request the gateway let run past the spec's own limit
// broke the contract (section 8 allows 600 s); a stall, a shorter limit the
// user set, a refused connection, DNS or a cancelled run is an error of the
// run, not a verdict on the gateway.
func transportFailure(ctx context.Context, err error, o Options) (vocab.Status, []vocab.Reason) {
	var stall *StallError
	switch {
	case errors.As(err, &stall):
		return vocab.StatusError, []vocab.Reason{{Check: "transport", Where: string(stall.Phase),
			Expected: fmt.Sprintf("progress within %s", stall.Limit), Actual: "none", Message: stall.Error()}}
	case errors.Is(ctx.Err(), context.DeadlineExceeded) && o.Timeout >= SpecMaxDuration:
		return vocab.StatusFail, []vocab.Reason{{Check: "transport", Expected: fmt.Sprintf("an answer within %s (spec 8)", o.Timeout),
			Actual: "no answer", Message: "the request ran past the duration the spec allows"}}
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return vocab.StatusError, []vocab.Reason{{Check: "transport", Expected: fmt.Sprintf("an answer within %s", o.Timeout),
			Actual: "no answer", Message: fmt.Sprintf("the whole-request limit of %s (--timeout) was reached; it is below the spec's %s, so this is no verdict", o.Timeout, SpecMaxDuration)}}
	}
	return vocab.StatusError, []vocab.Reason{{Check: "transport", Message: err.Error()}}
}
