package conformance

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/redact"
	"github.com/gwconform/gwconform/conformance/results"
)

// Runner executes planned calls against a target and checks the answers.
type Runner struct {
	*Suite
	Target  Target
	Options Options
}

// Run executes every call, at most Options.Concurrency at once per key, and
// hands each result to emit as soon as it is final. emit is called from one
// goroutine at a time. When ctx is cancelled, calls not yet started are not
// reported and calls in flight end with status error.
func (r *Runner) Run(ctx context.Context, calls []Call, emit func(results.Result)) {
	o := r.Options.withDefaults()
	client := r.Target.Client
	if client == nil {
		client = &http.Client{}
	}
	sems := map[catalog.KeyKind]chan struct{}{}
	for _, k := range catalog.KeyKinds {
		sems[k] = make(chan struct{}, o.Concurrency)
	}
	var emitMu sync.Mutex
	report := func(res results.Result) {
		redact.Result(&res, r.Target.Secrets())
		emitMu.Lock()
		defer emitMu.Unlock()
		emit(res)
	}
	var wg sync.WaitGroup
	for _, call := range calls {
		if call.Skip != nil {
			report(skipped(call))
			continue
		}
		sem := sems[call.Case.Key]
		if sem == nil {
			sem = make(chan struct{}, o.Concurrency)
			sems[call.Case.Key] = sem
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			wg.Wait()
			return
		}
		wg.Add(1)
		go func(call Call) {
			defer wg.Done()
			defer func() { <-sem }()
			report(r.runCall(ctx, client, o, call))
		}(call)
	}
	wg.Wait()
}

// RunOne makes one call now, outside any concurrency limit (go test
// subtests bring their own), and returns its redacted result.
func (r *Runner) RunOne(ctx context.Context, call Call) results.Result {
	if call.Skip != nil {
		return skipped(call)
	}
	client := r.Target.Client
	if client == nil {
		client = &http.Client{}
	}
	res := r.runCall(ctx, client, r.Options.withDefaults(), call)
	redact.Result(&res, r.Target.Secrets())
	return res
}

// runCall makes one call and checks it.
func (r *Runner) runCall(ctx context.Context, client *http.Client, o Options, call Call) (res results.Result) {
	cs := call.Case
	res = newResult(call, results.StatusPass)
	res.Started = time.Now().UTC()
	rendered, err := r.Catalog.Render(cs, call.Model, catalog.Env{PublicImageURL: r.Target.PublicImageURL})
	if err != nil {
		res.Status = results.StatusError
		res.Reasons = []results.Reason{{Check: "render", Message: err.Error()}}
		return res
	}
	res.Request = summarize(rendered)

	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	ex, err := send(ctx, client, o, r.Target, cs, rendered)
	res.Attempts = ex.attempts
	res.CostUnits = EstimateCost(cs).Units * float64(ex.attempts) // every attempt billed: an upper bound
	res.TTFBMS = ex.ttfb.Milliseconds()
	defer func() { res.DurationMS = time.Since(ex.started).Milliseconds() }()
	if err != nil {
		res.Status, res.Reasons = transportFailure(ctx, err, o.Timeout)
		return res
	}
	defer ex.resp.Body.Close()
	res.HTTPStatus = ex.resp.StatusCode

	c := &checker{}
	r.check(c, o, cs, ex, &res)
	res.Reasons = c.reasons
	res.Status = r.verdict(cs, ex, c)
	if err := ctx.Err(); err != nil && !c.ok() {
		// The timeout or a cancelled run cut the body or stream: say so
		// first; a cancelled run is an error of the run, not a verdict.
		st, rs := transportFailure(ctx, err, o.Timeout)
		res.Reasons = append(rs, res.Reasons...)
		if st == results.StatusError {
			res.Status = st
		}
	}
	res.Flaky = res.Status == results.StatusPass && res.Attempts > 1
	return res
}

// check runs every expectation of the case on the answer.
func (r *Runner) check(c *checker, o Options, cs *catalog.Case, ex *exchange, res *results.Result) {
	exp := cs.Expect
	resp := ex.resp
	success := resp.StatusCode >= 200 && resp.StatusCode < 300
	if resp.StatusCode != exp.Status || !success {
		// A mismatched or error status: the body only explains it. Error
		// body shapes are not shown by the spec (section 7), so no more checks.
		body, _ := readBody(resp.Body, 64<<10)
		c.checkStatus(exp.Status, resp.StatusCode, body)
		return
	}
	if exp.SSE != nil {
		if !c.checkContentType(resp.Header, "text/event-stream") {
			return
		}
		c.checkStream(&cappedReader{r: resp.Body, left: o.MaxBodyBytes, limit: o.MaxBodyBytes}, exp.SSE, r.Schemas, o, ex.started, res)
		return
	}
	body, err := readBody(resp.Body, o.MaxBodyBytes)
	if err != nil {
		c.fail("transport", "body", "the whole body", err.Error(), "reading the body failed")
		return
	}
	if len(exp.JSON) == 0 && exp.Schema == "" && exp.Images == nil {
		return // status-only case
	}
	if !c.checkContentType(resp.Header, "application/json") || !c.validJSON(body, "body") {
		return
	}
	c.checkSuccessBody(body, exp.Schema == "image_result")
	if exp.Schema != "" {
		c.checkSchema(r.Schemas, exp.Schema, body, "")
	}
	c.checkMatchers(body, exp.JSON)
	if exp.Schema == "image_result" || exp.Images != nil {
		res.Images = c.checkImageResult(body, exp.Images, o.Thumbnails)
	}
}

// verdict turns the collected reasons into a status. The explore tier maps a
// refused request to unsupported rather than fail: it discovers, never judges.
func (r *Runner) verdict(cs *catalog.Case, ex *exchange, c *checker) results.Status {
	code := ex.resp.StatusCode
	switch {
	case c.ok():
		return results.StatusPass
	case code == http.StatusTooManyRequests:
		return results.StatusThrottled
	case cs.Tier == results.TierExplore && code >= 400 && cs.Expect.Status < 400:
		return results.StatusUnsupported
	}
	return results.StatusFail
}

// transportFailure classifies an error before a usable response. A request
// the gateway let run past the timeout broke the contract (spec 8 allows 600
// s); anything else (refused connection, DNS, cancelled run) is an error of
// the run, not a verdict on the gateway.
func transportFailure(ctx context.Context, err error, timeout time.Duration) (results.Status, []results.Reason) {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return results.StatusFail, []results.Reason{{Check: "transport", Expected: fmt.Sprintf("an answer within %s", timeout),
			Actual: "no answer", Message: "the request timed out"}}
	}
	return results.StatusError, []results.Reason{{Check: "transport", Message: err.Error()}}
}

func newResult(c Call, st results.Status, reasons ...results.Reason) results.Result {
	return results.Result{
		Case: c.Case.ID, Feature: c.Case.Feature, Model: c.Model, Tier: c.Case.Tier, Status: st,
		Key: string(c.Case.Key), Spec: c.Case.Spec, Requirement: c.Case.Requirement,
		Reasons: reasons, Started: time.Now().UTC(), Params: c.Case.Params,
	}
}
