package execute

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/check"
	"github.com/gwconform/gwconform/conformance/pace"
	"github.com/gwconform/gwconform/conformance/plan"
	"github.com/gwconform/gwconform/conformance/record"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// Options tune how calls are made.
type Options struct {
	// Concurrency is the number of calls in flight per key (default 4).
	Concurrency int
	// Timeout bounds one request, body or stream included (default 600 s,
	// the duration the spec allows verified clients, section 8).
	Timeout time.Duration
	// ConnectTimeout, HeaderTimeout (to the first response byte) and
	// IdleTimeout (between two body bytes; SSE comments count) bound the
	// phases of a request; unset, only Timeout bounds them. A non-streaming image
	// call, or a stream with partial_images 0, may rightly be silent for
	// minutes, so shorter limits are the user's choice, and a stall an error.
	ConnectTimeout, HeaderTimeout, IdleTimeout time.Duration
	// MaxRetries is how often a call is retried after 408, 409, any 5xx
	// or a connection error before any response byte, as the official
	// clients retry them (default 2; negative: none). A 429 is waited on
	// as it asks, not retried (MaxWait).
	MaxRetries int
	// RetryWait is the wait before a retry when the gateway gives no
	// Retry-After, and the first wait after a 429 that says nothing of its
	// limit (default 1 s); MaxRetryWait caps a retry's wait (default 60 s).
	RetryWait, MaxRetryWait time.Duration
	// MaxWait is how long one call may wait on the gateway's rate limit,
	// 429s included, before its last 429 is its answer: throttled (default
	// 15 minutes). Waiting is not part of any request's duration.
	MaxWait time.Duration
	// Unpaced sends without pacing: a replay, which sends nothing, answers
	// its recorded 429s at once.
	Unpaced bool
	// Limits bound what the checks read and keep of an answer. MaxBodyBytes
	// defaults to 256 MiB: two large PNGs in base64 are tens of MB; anything
	// near the cap is hostile, and an endless stream of valid events must
	// not grow the text a stream check accumulates without bound.
	check.Limits
}

// WithDefaults fills the unset options with their defaults.
func (o Options) WithDefaults() Options {
	if o.Concurrency <= 0 {
		o.Concurrency = 4
	}
	if o.Timeout <= 0 {
		o.Timeout = SpecMaxDuration
	}
	// A phase limit not below the whole-request limit adds nothing: it is
	// off (0), so the whole-request limit alone names what ended the call.
	for _, d := range []*time.Duration{&o.ConnectTimeout, &o.HeaderTimeout, &o.IdleTimeout} {
		if *d <= 0 || *d >= o.Timeout {
			*d = 0
		}
	}
	if o.MaxRetries == 0 {
		o.MaxRetries = 2
	}
	if o.MaxRetries < 0 {
		o.MaxRetries = 0
	}
	if o.RetryWait <= 0 {
		o.RetryWait = time.Second
	}
	if o.MaxRetryWait <= 0 {
		o.MaxRetryWait = 60 * time.Second
	}
	if o.MaxWait <= 0 {
		o.MaxWait = 15 * time.Minute
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 256 << 20
	}
	return o
}

// exchange is one answered request: the response with its body still open,
// and the timings so far.
type exchange struct {
	resp     *http.Response
	ctx      context.Context // the answering attempt's: its timeout counts from its send
	started  time.Time       // when the answering attempt was sent
	ttfb     time.Duration
	attempts int                // requests sent: retries and the 429s waited on included
	retried  []string           // what ended each attempt made again after a 5xx or a lost connection: "HTTP 503", "stalled in the first byte phase"
	refused  int                // attempts answered 4xx or 5xx: no output, no cost
	waits    int                // waits on the rate limit before a send
	waited   time.Duration      // their sum: not part of any request's duration
	watch    *watchdog          // of the attempt that answered
	release  context.CancelFunc // ends the answering attempt: its timeout and its place in flight
}

// finish ends the answering attempt, once its body is read.
func (ex *exchange) finish() {
	if ex.release != nil {
		ex.release()
	}
}

// stalled is the phase limit that cut the answered attempt, if any.
func (ex *exchange) stalled() *StallError {
	if ex.watch == nil {
		return nil
	}
	return ex.watch.stalled()
}

// errNoResponse marks a transport failure before any response byte: the only
// kind of error that is safe to retry (nothing was processed that we saw).
type errNoResponse struct{ err error }

func (e errNoResponse) Error() string { return e.err.Error() }
func (e errNoResponse) Unwrap() error { return e.err }

// send makes the request when the pacer lets it (p nil: at once; a 429's
// wait is then kept here, as a replay, which sends nothing, does), and
// again as the answers ask:
//   - a 429 is the gateway asking to wait: the pacer waits as asked and
//     sends again, spending no retry, until waiting would pass
//     Options.MaxWait; then the 429 is the answer (throttled);
//   - a status of vocab.Retryable (408, 409, any 5xx), or a connection lost
//     before any response byte, is retried Options.MaxRetries times.
//
// Each attempt's timeout counts from its send. The caller calls ex.finish
// once the answer is read. On error, ex tells what was tried.
func send(ctx context.Context, client *http.Client, o Options, p *pace.Pacer, t plan.Target, cs *catalog.Case, r *catalog.Rendered) (*exchange, error) {
	ex := &exchange{}
	family := pace.FamilyOf(r.Path)
	for {
		ticket, err := ex.acquire(ctx, p, string(cs.Key), family, o)
		if err != nil {
			return ex, err
		}
		ex.attempts++
		flightOf(ctx).set(string(phaseConnect))
		actx, cancel := context.WithTimeout(ctx, o.Timeout)
		end := func() { ticket.Release(); cancel() }
		resp, ttfb, started, watch, err := sendOnce(actx, client, o, t, cs, r)
		ex.ctx, ex.started, ex.ttfb, ex.watch, ex.release = actx, started, ttfb, watch, end
		if err == nil && resp.StatusCode >= 400 {
			ex.refused++
		}
		next := ex.after(ctx, o, p, ticket, resp, err)
		if next.done {
			return ex, next.err
		}
		end()
		if next.retry || next.wait > 0 {
			if err := sleep(ctx, next.wait); err != nil {
				return ex, err
			}
		}
	}
}

// acquire waits for the pacer's leave to send (none without a pacer),
// within what is left of Options.MaxWait.
func (ex *exchange) acquire(ctx context.Context, p *pace.Pacer, key string, family pace.Family, o Options) (*pace.Ticket, error) {
	if p == nil {
		return &pace.Ticket{}, nil
	}
	flightOf(ctx).set("waiting on the rate limit")
	ticket, err := p.Acquire(ctx, key, family, o.MaxWait-ex.waited)
	if err != nil {
		return nil, err
	}
	if ticket.Waited > 0 {
		ex.waits++
		ex.waited += ticket.Waited
	}
	return ticket, nil
}

// nextStep is what send does after an attempt: return (done, with err),
// or send again after wait, spending a retry or not.
type nextStep struct {
	done  bool
	err   error
	retry bool
	wait  time.Duration
}

// after decides what follows an attempt that answered resp or failed with err.
func (ex *exchange) after(ctx context.Context, o Options, p *pace.Pacer, ticket *pace.Ticket, resp *http.Response, err error) nextStep {
	switch {
	case err != nil:
		return ex.afterNoResponse(ctx, o, err)
	case resp.StatusCode == http.StatusTooManyRequests:
		return ex.afterTooMany(o, p, ticket, resp)
	case vocab.Retryable(resp.StatusCode) && len(ex.retried) < o.MaxRetries:
		return ex.afterRetryable(ctx, o, ticket, resp)
	}
	ticket.Observe(resp.StatusCode, resp.Header)
	ex.resp = resp
	return nextStep{done: true}
}

// afterNoResponse retries a connection lost before any response byte,
// within Options.MaxRetries; any other error ends the call.
func (ex *exchange) afterNoResponse(ctx context.Context, o Options, err error) nextStep {
	var nr errNoResponse
	var skip *record.SkipError // a replay's "no recording" stays so
	if !errors.As(err, &nr) || errors.As(err, &skip) || len(ex.retried) >= o.MaxRetries || ctx.Err() != nil {
		return nextStep{done: true, err: err}
	}
	ex.retried = append(ex.retried, attemptEnd(err))
	return nextStep{retry: true, wait: o.RetryWait}
}

// afterTooMany waits as a 429 asks, spending no retry, unless waiting
// would pass --max-wait: then this answer is the verdict (throttled). The
// pacer holds the next send; without one, send waits itself.
func (ex *exchange) afterTooMany(o Options, p *pace.Pacer, ticket *pace.Ticket, resp *http.Response) nextStep {
	retryIn := ticket.Observe(resp.StatusCode, resp.Header)
	if p == nil {
		retryIn = retryWait(resp, o)
	}
	if ex.waited+retryIn > o.MaxWait {
		ex.resp = resp
		return nextStep{done: true}
	}
	discard(resp)
	if p != nil {
		return nextStep{}
	}
	ex.waits++
	ex.waited += retryIn
	return nextStep{wait: retryIn}
}

// afterRetryable retries a status of vocab.Retryable after the wait it asks for,
// unless that wait outlasts the run's deadline: then this answer is the
// verdict, not a timeout of our making.
func (ex *exchange) afterRetryable(ctx context.Context, o Options, ticket *pace.Ticket, resp *http.Response) nextStep {
	ticket.Observe(resp.StatusCode, resp.Header)
	wait := retryWait(resp, o)
	if dl, ok := ctx.Deadline(); ok && time.Now().Add(wait).After(dl) {
		ex.resp = resp
		return nextStep{done: true}
	}
	ex.retried = append(ex.retried, fmt.Sprintf("HTTP %d", resp.StatusCode))
	discard(resp)
	return nextStep{retry: true, wait: wait}
}

// attemptEnd says in a few words what ended an attempt without a response.
func attemptEnd(err error) string {
	var stall *StallError
	if errors.As(err, &stall) {
		return fmt.Sprintf("stalled in the %s phase", stall.Phase)
	}
	return "no response (" + err.Error() + ")"
}

// retriesReason says what the attempts before the last met, for a result
// that is no pass: "3 attempts; the 2 before the last: stalled in the first
// byte phase each time", "2 attempts; the first: HTTP 503". None when the
// call was not retried.
func (ex *exchange) retriesReason() (vocab.Reason, bool) {
	if len(ex.retried) == 0 {
		return vocab.Reason{}, false
	}
	n := len(ex.retried) + 1
	before, what := "the first", ex.retried[0]
	if n > 2 {
		before, what = fmt.Sprintf("the %d before the last", n-1), strings.Join(ex.retried, ", then ")
		if len(slices.Compact(slices.Clone(ex.retried))) == 1 {
			what = ex.retried[0] + " each time"
		}
	}
	return vocab.Reason{Check: "transport", Where: "attempts", Expected: "an answer on the first attempt",
		Actual: fmt.Sprintf("%d attempts", n), Message: fmt.Sprintf("%d attempts; %s: %s", n, before, what)}, true
}

// retryWait is the wait an answer asks for before the next attempt: its
// Retry-After, or Options.RetryWait, at most Options.MaxRetryWait.
func retryWait(resp *http.Response, o Options) time.Duration {
	asked, ok := pace.RetryAfter(resp.Header.Get("Retry-After"), time.Now())
	if !ok {
		asked = o.RetryWait
	}
	return min(asked, o.MaxRetryWait)
}

// sleep waits d, or until ctx ends (its error).
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// discard drains a little of an answer not kept, so that its connection
// can be reused, and closes it.
func discard(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}

// sendOnce makes one attempt under a watchdog of its phases; the response
// body it returns keeps the watch until it is closed.
func sendOnce(ctx context.Context, client *http.Client, o Options, t plan.Target, cs *catalog.Case, r *catalog.Rendered) (*http.Response, time.Duration, time.Time, *watchdog, error) {
	ctx, watch := newWatchdog(ctx, o)
	req, err := http.NewRequestWithContext(ctx, r.Method, t.BaseForPath(cs.Key, r.Path)+r.Path, bytes.NewReader(r.Body))
	if err != nil {
		watch.stop()
		return nil, 0, time.Now(), nil, err
	}
	t.SetHeaders(req.Header, cs.Key, r.Path)
	for k, vs := range r.Header {
		req.Header[k] = append([]string(nil), vs...)
	}
	switch cs.Request.Auth {
	case catalog.AuthKey:
		req.Header.Set("Authorization", "Bearer "+t.Keys[cs.Key])
	case catalog.AuthInvalid:
		req.Header.Set("Authorization", "Bearer gwconform-invalid-key")
	}
	var gotByte bool
	started := time.Now()
	var ttfb time.Duration
	trace := &httptrace.ClientTrace{
		GotConn: func(httptrace.GotConnInfo) {
			watch.enter(phaseHeader)
			flightOf(ctx).set(string(phaseHeader))
		},
		GotFirstResponseByte: func() {
			flightOf(ctx).set(string(phaseBody))
			gotByte = true
			ttfb = time.Since(started)
			watch.enter(phaseBody)
		},
	}
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), trace))
	resp, err := client.Do(req)
	if err != nil {
		watch.stop()
		if s := watch.stalled(); s != nil {
			err = s
		}
		if !gotByte {
			return nil, ttfb, started, watch, errNoResponse{err}
		}
		return nil, ttfb, started, watch, err
	}
	resp.Body = &watchedBody{rc: resp.Body, w: watch}
	return resp, ttfb, started, watch, nil
}

// otherLists lists the models of each key kind a differs_from check
// compares with (those configured and not rejected). They are requests of
// the execute stage, paced, retried and bounded as the call's own and
// tallied in res, so the check only reads them. A list that cannot be had
// leaves the call without a verdict: throttled, or an error of the run,
// never a failure of the gateway's contract.
func (r *Runner) otherLists(ctx context.Context, client *http.Client, o Options, p *pace.Pacer, kinds []catalog.KeyKind, res *results.Result) (lists map[catalog.KeyKind][]string, st vocab.Status, reasons []vocab.Reason) {
	lists = map[catalog.KeyKind][]string{}
	for _, kind := range kinds {
		if !r.Target.Usable(kind) {
			continue
		}
		cs := &catalog.Case{ID: "model list of the " + string(kind) + " key", Key: kind,
			Request: catalog.Request{Method: http.MethodGet, Path: "/v1/models"}}
		ex, err := send(ctx, client, o, p, r.Target, cs, &catalog.Rendered{Method: http.MethodGet, Path: "/v1/models"})
		tally(res, ex, 1) // a model list costs what a text call does
		unlisted := func(st vocab.Status, actual, msg string) (map[catalog.KeyKind][]string, vocab.Status, []vocab.Reason) {
			ex.finish()
			return nil, st, []vocab.Reason{{Check: "differs_from", Where: "GET /v1/models (" + string(kind) + " key)",
				Expected: "the other key's model list, to compare", Actual: actual, Message: msg}}
		}
		switch {
		case errors.Is(err, pace.ErrOverBudget):
			return unlisted(vocab.StatusThrottled, "still limited", err.Error())
		case err != nil:
			st, rs := transportFailure(attemptContext(ctx, ex), err, o)
			ex.finish()
			return nil, st, rs
		}
		body, err := check.ReadBody(ex.resp.Body, modelListLimit)
		ex.resp.Body.Close()
		code := ex.resp.StatusCode
		switch {
		case code == http.StatusTooManyRequests:
			return unlisted(vocab.StatusThrottled, "HTTP 429", "the other key's model list stayed throttled past --max-wait: nothing to compare")
		case err != nil:
			return unlisted(vocab.StatusError, err.Error(), "reading the other key's model list failed: nothing to compare")
		case code/100 != 2:
			return unlisted(vocab.StatusError, fmt.Sprintf("HTTP %d", code), "the other key's model list was not served: nothing to compare (its own case judges it)")
		}
		ids, err := modelIDs(body)
		if err != nil {
			return unlisted(vocab.StatusError, err.Error(), "the other key's model list is not JSON: nothing to compare (its own case judges it)")
		}
		ex.finish()
		lists[kind] = ids
	}
	return lists, "", nil
}

// tally adds what an exchange made to res: its requests, those refused,
// its waits on the rate limit, and its cost at unit per request that was
// not refused (every attempt that may hold output is billed, an upper
// bound; one answered 4xx or 5xx produced nothing).
func tally(res *results.Result, ex *exchange, unit float64) {
	res.Requests += ex.attempts
	res.Refused += ex.refused
	res.Waits += ex.waits
	res.WaitMS += ex.waited.Milliseconds()
	res.CostUnits += unit * float64(ex.attempts-ex.refused)
}

// flight is a call in flight, for the progress line: what it is, since
// when, and in which phase it is now.
type flight struct {
	call    string // case × model
	started time.Time
	mu      sync.Mutex
	phase   string
}

func (f *flight) set(phase string) {
	if f == nil {
		return
	}
	f.mu.Lock()
	f.phase = phase
	f.mu.Unlock()
}

type flightKey struct{}

// flightOf is the flight a call's context carries, or nil.
func flightOf(ctx context.Context) *flight {
	f, _ := ctx.Value(flightKey{}).(*flight)
	return f
}

// flights are the calls of a runner in flight.
type flights struct {
	mu  sync.Mutex
	all map[*flight]bool
}

// begin registers a call in flight; the returned context carries it, and
// end removes it.
func (fs *flights) begin(ctx context.Context, c plan.Call) (context.Context, func()) {
	f := &flight{call: c.Case.ID + " × " + c.Model, started: time.Now()}
	fs.mu.Lock()
	if fs.all == nil {
		fs.all = map[*flight]bool{}
	}
	fs.all[f] = true
	fs.mu.Unlock()
	return context.WithValue(ctx, flightKey{}, f), func() {
		fs.mu.Lock()
		delete(fs.all, f)
		fs.mu.Unlock()
	}
}

// longer describes the calls in flight for longer than d, longest first:
// "gen-basic × gen-image-2 (first byte, 45s)".
func (fs *flights) longer(d time.Duration) []string {
	fs.mu.Lock()
	var fl []*flight
	for f := range fs.all {
		if time.Since(f.started) > d {
			fl = append(fl, f)
		}
	}
	fs.mu.Unlock()
	slices.SortFunc(fl, func(a, b *flight) int { return a.started.Compare(b.started) })
	out := make([]string, len(fl))
	for i, f := range fl {
		f.mu.Lock()
		out[i] = fmt.Sprintf("%s (%s, %s)", f.call, f.phase, time.Since(f.started).Round(time.Second))
		f.mu.Unlock()
	}
	return out
}
