package observe

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/record"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// A Session judges one stream of exchanges, a relay's traffic or a
// recording read back, as a run judges its calls: what one exchange alone
// cannot settle waits for the exchanges that settle it.
//   - Attempts: a request resent after a 408, 409, 429 or 5xx is one
//     result, judged on its last attempt, flaky when an earlier attempt
//     failed (a 429 is pacing, not flakiness), as the run's retries are.
//   - Controls: a negative refused as stated counts only when the endpoint
//     served its control, the request without the defect, in the same
//     traffic (results.Settle); otherwise it is inconclusive.
//
// Each result reaches emit once it is final: at once for most, when its
// window closes or at Close for those that wait.
type Session struct {
	judge *Judge
	emit  func(results.Result)

	mu sync.Mutex
	// held are answers a resend may still supersede, by the request's
	// identity, with the time their window closes.
	held map[record.RequestKey]*attempt
	// waiting are negatives refused as stated, waiting for their control.
	waiting []waitingNegative
	// served are the controls the traffic has shown served.
	served []control
	// shapes are, per model, the image input shapes tried and whether one
	// was served.
	shapes map[string]*shapeTally
}

// shapeTry is one image input sent in a shape a verified row tries (4.3
// verifies image input for the alternative model, not the shape of its
// content): refused alone it proves nothing, since another shape may be
// the gateway's.
type shapeTry struct {
	model, shape string
	served       bool
	answer       results.Result
}

type shapeTally struct {
	tried  []string
	served bool
	last   results.Result
}

// attempt is the last attempt of a request so far: its results (the
// client's and the gateway's), how many attempts came before, whether one
// of them failed otherwise than by a 429, and when its window closes.
type attempt struct {
	rs       []results.Result
	attempts int
	failed   bool
	closes   time.Time
	ctl      *control // the control the gateway's result needs, if negative
	served   *control // the control it is, if served
}

type waitingNegative struct {
	res  results.Result
	want control
}

// retryWindow is how long a failed attempt waits for its resend: the
// official clients back off for seconds, the run for at most a
// Retry-After it honours; a resend later than this is a new request.
const retryWindow = 2 * time.Minute

// NewSession starts a session of j's judgements; emit receives each
// result once final, one at a time.
func NewSession(j *Judge, emit func(results.Result)) *Session {
	return &Session{judge: j, emit: emit, held: map[record.RequestKey]*attempt{}}
}

// Round judges one round and emits what it settles.
func (s *Session) Round(r record.Round, file string, store *record.Store) {
	s.take(r, s.judge.exchange(r, file, store))
}

// take settles a judged round: rounds must come in the order they were
// sent (a Pipeline judges them in parallel and hands them over in order).
func (s *Session) take(r record.Round, x judged) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closeWindows(r.Sent)
	key := r.Request.MatchKey()
	if t := x.shape; t != nil {
		s.tryShape(t)
	}
	a := &attempt{rs: x.results, attempts: 1, closes: r.Sent.Add(retryWindow), ctl: x.needs, served: x.serves}
	if prev, ok := s.held[key]; ok {
		delete(s.held, key)
		a.attempts, a.failed = prev.attempts+1, prev.failed
	}
	if retried(r) {
		a.failed = a.failed || !throttled(r)
		s.held[key] = a
		return
	}
	s.final(a)
}

// Close settles everything still waiting: held attempts are judged as
// they ended, negatives without a served control are inconclusive.
func (s *Session) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closeWindows(time.Time{})
	for _, w := range s.waiting {
		s.emit(results.Settle(w.res, w.want.String(), nil))
	}
	s.waiting = nil
	s.closeShapes()
}

func (s *Session) tryShape(t *shapeTry) {
	if s.shapes == nil {
		s.shapes = map[string]*shapeTally{}
	}
	tally := s.shapes[t.model]
	if tally == nil {
		tally = &shapeTally{}
		s.shapes[t.model] = tally
	}
	if !slices.Contains(tally.tried, t.shape) {
		tally.tried = append(tally.tried, t.shape)
	}
	tally.served = tally.served || t.served
	tally.last = t.answer
}

// closeShapes fails the image input of a model whose every shape a
// verified row tries was sent and refused, as the run's case fails when
// no shape it tries is accepted; fewer shapes tried, or one served, decide
// nothing.
func (s *Session) closeShapes() {
	for _, model := range slices.Sorted(maps.Keys(s.shapes)) {
		tally, want := s.shapes[model], s.judge.forms.imageShapes[model]
		if tally.served || slices.ContainsFunc(want, func(shape string) bool { return !slices.Contains(tally.tried, shape) }) {
			continue
		}
		res := tally.last
		res.Case += "-image-input"
		res.Tier, res.Status, res.Feature, res.Spec = vocab.TierVerified, vocab.StatusFail, "messages.image_input", "4.3/alt-image-input"
		res.Reasons = []vocab.Reason{{Check: "status", Where: "image input", Expected: "one of the shapes " + strings.Join(want, ", ") + " served",
			Actual: "every one refused", Message: fmt.Sprintf("%s refused image input in every shape tried (spec 4.3/alt-image-input: %s)", model, s.judge.sentence("4.3/alt-image-input"))}}
		s.emit(res)
	}
}

// closeWindows finalises the held attempts whose window closed before
// now (all of them for a zero now), oldest first.
func (s *Session) closeWindows(now time.Time) {
	var due []*attempt
	for k, a := range s.held {
		if now.IsZero() || now.After(a.closes) {
			due = append(due, a)
			delete(s.held, k)
		}
	}
	slices.SortFunc(due, func(a, b *attempt) int { return a.closes.Compare(b.closes) })
	for _, a := range due {
		s.final(a)
	}
}

// final emits an attempt's results as final: with its count of attempts,
// flaky when it passed after a failed one; a negative refused as stated
// waits for its control, and a served control settles those waiting.
func (s *Session) final(a *attempt) {
	for _, res := range a.rs {
		res.Attempts, res.Requests = a.attempts, a.attempts
		res.Flaky = a.failed && res.Status == vocab.StatusPass && res.Side == results.SideGateway
		if a.ctl != nil && res.Side == results.SideGateway && res.Tier == vocab.TierNegative && res.Status == vocab.StatusPass {
			if !slices.ContainsFunc(s.served, func(c control) bool { return c.serves(*a.ctl) }) {
				s.waiting = append(s.waiting, waitingNegative{res: res, want: *a.ctl})
				continue
			}
		}
		s.emit(res)
	}
	if a.served == nil {
		return
	}
	if !slices.Contains(s.served, *a.served) { // a few kinds, however long the traffic
		s.served = append(s.served, *a.served)
	}
	s.waiting = slices.DeleteFunc(s.waiting, func(w waitingNegative) bool {
		if !a.served.serves(w.want) {
			return false
		}
		s.emit(w.res)
		return true
	})
}

// retried says the answer is one a client resends: a 408, 409, 429 or
// 5xx, or no answer at all (the run's retries, and the official
// clients').
func retried(r record.Round) bool {
	if r.Cut != "" {
		return false
	}
	if r.Response == nil {
		return r.Error != ""
	}
	st := r.Response.Status
	return vocab.Retryable(st) || st == http.StatusTooManyRequests
}

func throttled(r record.Round) bool {
	return r.Response != nil && r.Response.Status == http.StatusTooManyRequests
}

// control is a request a negative's refusal is weighed against: the same
// endpoint served with the key, encoding and model the negative's request
// would have without its defect (model "" is any model; stream asks for a
// stream).
type control struct {
	endpoint, key, model string
	multipart, stream    bool
	row                  string // the negative's row, for the inconclusive reason
}

// serves says a served request (c) is the control a negative wants.
func (c control) serves(want control) bool {
	return c.endpoint == want.endpoint && c.key == want.key && c.multipart == want.multipart &&
		(!want.stream || c.stream) && (want.model == "" || c.model == want.model)
}

// String names the control a negative waited for in vain.
func (want control) String() string {
	s := fmt.Sprintf("a request to %s with the %s key", want.endpoint, want.key)
	if want.model != "" {
		s += " for " + want.model
	}
	if want.stream {
		s += ", streaming,"
	}
	return s + " served in the same traffic"
}

// controlOf is the control a served request is.
func (j *Judge) controlOf(q *Request) control {
	return control{endpoint: q.Endpoint, key: q.Key, model: j.forms.modelKey(q), multipart: q.Multipart(), stream: q.Streams()}
}

// controlFor is the control a negative's refusal is weighed against, as
// its case names one (results.Settle): the same request served without
// its defect — with the image key for 5.2's permission, with any listed
// model for a retired one or a missing one, and streaming for a stream's
// partial_images.
func (j *Judge) controlFor(q *Request, o *owed) *control {
	c := j.controlOf(q)
	c.row, c.stream = o.row, false
	switch o.row {
	case refused.row:
		c.key = string(catalog.KeyImage)
	case "7/messages-unknown-model", "7/chat-no-model", "7/messages-no-model":
		c.model = ""
	case "7/stream-partial-images":
		c.stream = true
	}
	return &c
}
