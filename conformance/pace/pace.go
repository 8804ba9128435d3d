// Package pace keeps a run within a gateway's rate limit: it decides when
// each request may be sent, per key and path family, from what the gateway
// says about its limit. A 429 is the gateway asking to wait, not a failure:
// the pacer waits as asked and sends again, and only a call still refused
// after waiting longer than its budget is left throttled.
//
// What it learns from, per lane (one key × one family):
//   - Retry-After on a 429: no send on the lane before it has passed;
//   - the rate-limit headers of both styles (x-ratelimit-*-requests and
//     anthropic-ratelimit-requests-*): when the remaining count runs low, the
//     lane sends one request per refill interval instead of all at once, so
//     it slows down before a 429;
//   - a bare 429 (neither): additive increase, multiplicative decrease of the
//     calls the lane lets into flight, never above the run's concurrency;
//   - 429s in a row: each waits at least as long as the one before did,
//     doubled (from Options.BareWait up to MaxBareWait), whatever it asks.
package pace

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Family is a group of paths a gateway limits together.
type Family string

// The families: one per interface of the spec.
const (
	Models    Family = "models"
	Chat      Family = "chat"
	Messages  Family = "messages"
	Images    Family = "images"
	Responses Family = "responses"
)

// FamilyOf names the family of a request path.
func FamilyOf(path string) Family {
	switch {
	case strings.HasPrefix(path, "/v1/models"):
		return Models
	case strings.HasPrefix(path, "/v1/chat/"):
		return Chat
	case strings.HasPrefix(path, "/v1/messages"):
		return Messages
	case strings.HasPrefix(path, "/v1/images/"):
		return Images
	case strings.HasPrefix(path, "/v1/responses"):
		return Responses
	}
	return Family(path)
}

// Options bound the pacer.
type Options struct {
	// Concurrency is the most calls a lane lets into flight (default 4).
	Concurrency int
	// BareWait is the first wait after a 429 that says nothing of its limit,
	// and of the second 429 in a row whatever it says (default 1 s); it
	// doubles with each 429 in a row up to MaxBareWait (default 60 s).
	BareWait, MaxBareWait time.Duration
	// Now is the clock (default time.Now); tests set it.
	Now func() time.Time
}

// ErrOverBudget is returned by Acquire when the lane cannot send within the
// caller's budget: waiting longer would not be waiting but hanging.
var ErrOverBudget = errors.New("the rate limit's wait exceeds the budget")

// Pacer paces the lanes of one run. It is safe for concurrent use.
type Pacer struct {
	o     Options
	mu    sync.Mutex
	lanes map[laneKey]*lane
}

type laneKey struct {
	key    string
	family Family
}

// lane is the pacing state of one key × family.
type lane struct {
	window    float64   // calls let into flight (AIMD), 1..Concurrency
	inflight  int       // calls sent and not yet done
	notBefore time.Time // no send before: Retry-After, a spent quota, a bare 429's wait
	// While the quota runs low the lane keeps a copy of the gateway's
	// bucket: tokens, refilled one per interval() up to quotaLimit, one
	// taken by each send, none left after a 429.
	metered  bool
	tokens   float64
	tokensAt time.Time     // when tokens was last brought up to date
	floor    time.Duration // the least interval a 429 has shown to be needed
	bareWait time.Duration // the next 429's least wait: 0 after an answer, then BareWait doubling
	// lastRefusal is when the lane's last 429 came: a 429 to a send made
	// before it is the same refusal seen again.
	lastRefusal time.Time
	// refill is the quota's refill interval per request, learnt from its
	// headers (meter; 0: not known yet), for a quota of quotaLimit.
	quotaLimit int
	refill     time.Duration
	changed    chan struct{} // closed when a send slot may have opened
	reason     string        // why the lane last waited, for the progress line
}

// New makes a pacer.
func New(o Options) *Pacer {
	if o.Concurrency <= 0 {
		o.Concurrency = 4
	}
	if o.BareWait <= 0 {
		o.BareWait = time.Second
	}
	if o.MaxBareWait <= 0 {
		o.MaxBareWait = 60 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Pacer{o: o, lanes: map[laneKey]*lane{}}
}

func (p *Pacer) lane(key string, f Family) *lane {
	k := laneKey{key, f}
	l := p.lanes[k]
	if l == nil {
		l = &lane{window: float64(p.o.Concurrency), changed: make(chan struct{})}
		p.lanes[k] = l
	}
	return l
}

// wake tells the lane's waiters that a slot may have opened.
func (l *lane) wake() {
	close(l.changed)
	l.changed = make(chan struct{})
}

// Ticket is one send the pacer let through. Observe learns from its
// answer; Release frees its place in flight once the answer is read. The
// zero Ticket, of a send made without a pacer, does nothing.
type Ticket struct {
	p        *Pacer
	l        *lane
	sent     time.Time     // when Acquire let it through
	Waited   time.Duration // how long Acquire waited before letting it through
	released bool
}

// Acquire waits until key's lane for family may send, and returns the
// ticket of that send. It waits at most budget, for the lane's opening or
// for a place in flight alike (ErrOverBudget at once when the lane's known
// wait is longer), and no longer than ctx.
func (p *Pacer) Acquire(ctx context.Context, key string, f Family, budget time.Duration) (*Ticket, error) {
	start := p.o.Now()
	for slept := false; ; slept = true {
		p.mu.Lock()
		l := p.lane(key, f)
		now := p.o.Now()
		at := l.notBefore
		if l.metered {
			l.refillTokens(now)
			if l.tokens < 1 {
				at = laterOf(at, now.Add(time.Duration((1-l.tokens)*float64(l.interval()))))
			}
		}
		if !now.Before(at) && l.inflight < int(l.window) {
			l.inflight++
			if l.metered {
				l.tokens--
			}
			p.mu.Unlock()
			tk := &Ticket{p: p, l: l, sent: now}
			if slept {
				tk.Waited = now.Sub(start)
			}
			return tk, nil
		}
		if at.Sub(start) > budget {
			p.mu.Unlock()
			return nil, fmt.Errorf("%w: the %s key's %s requests wait until %s, past the %s allowed (--max-wait)",
				ErrOverBudget, key, f, at.Format(time.RFC3339), budget.Round(time.Second))
		}
		// A wait for a place in flight is bounded by the budget too: the
		// calls in flight may not end before it (a 600 s request), and no
		// wait of the run is without end.
		deadline := start.Add(budget)
		if !now.Before(deadline) {
			inflight := l.inflight
			p.mu.Unlock()
			return nil, fmt.Errorf("%w: the %s key's %s requests had %d in flight for the %s allowed (--max-wait)",
				ErrOverBudget, key, f, inflight, budget.Round(time.Second))
		}
		d := deadline.Sub(now)
		if at.After(now) {
			d = min(d, at.Sub(now))
		}
		changed := l.changed
		p.mu.Unlock()
		if err := sleep(ctx, d, changed); err != nil {
			return nil, err
		}
	}
}

// sleep waits d (nothing when d ≤ 0), until changed is closed, or until ctx
// ends (its error).
func sleep(ctx context.Context, d time.Duration, changed <-chan struct{}) error {
	var timer <-chan time.Time
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timer = t.C
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer:
	case <-changed:
	}
	return nil
}

// Observe learns from the attempt's answer: its status and headers. For a
// 429 it returns the wait the gateway asked for (or the pacer chose); the
// lane sends nothing before it has passed, and the caller acquires a new
// ticket to send again.
func (t *Ticket) Observe(status int, h http.Header) (retryIn time.Duration) {
	p, l := t.p, t.l
	if p == nil { // no pacer: nothing to learn
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	defer l.wake()
	now := p.o.Now()
	q, hasQuota := readQuota(h, now)
	if status == http.StatusTooManyRequests {
		return l.refused(p.o, h, q, hasQuota, t.sent, now)
	}
	// An answer that is no refusal: open the window again, additively.
	l.window = math.Min(float64(p.o.Concurrency), l.window+1/l.window)
	l.bareWait = 0
	if hasQuota {
		l.meter(q, now)
	}
	return 0
}

// Release frees the ticket's place in flight: its answer is read, or none
// came. Releasing twice is harmless.
func (t *Ticket) Release() {
	if t.p == nil {
		return
	}
	t.p.mu.Lock()
	defer t.p.mu.Unlock()
	if !t.released {
		t.released = true
		t.l.inflight--
		t.l.wake()
	}
}

// refused handles a 429 to a send made at sent: wait as asked, and learn.
// A 429 to a send that was in flight when the lane's last 429 came is the
// same refusal seen again: it is waited on, but teaches nothing more.
func (l *lane) refused(o Options, h http.Header, q quota, hasQuota bool, sent, now time.Time) time.Duration {
	again := sent.Before(l.lastRefusal)
	l.lastRefusal = now
	wait, asked := RetryAfter(h.Get("Retry-After"), now)
	if hasQuota {
		l.meter(q, now)
		if !again && l.metered {
			// A 429 while the lane kept to the interval the headers gave:
			// that interval is too short for this gateway; 5% more.
			l.floor = max(l.floor, l.interval()+l.interval()/20)
		}
		l.tokens = 0
		if !asked && q.remaining <= 0 {
			wait, asked = l.interval(), true
		}
	}
	bare := !asked && !hasQuota
	if bare && !again {
		// A bare 429: fewer calls at once.
		l.window = math.Max(1, l.window/2)
	}
	// 429s in a row wait at least BareWait, doubling up to MaxBareWait
	// (a bare one from the first): a gateway that asks for no wait, or
	// for 0 s, again and again is not sent a request in a tight loop.
	least := l.bareWait
	if bare {
		least = max(least, o.BareWait)
	}
	if again {
		least = 0 // the lane is closed for the refusal already
	}
	wait = max(wait, least)
	if !again {
		l.bareWait = min(max(2*wait, o.BareWait), o.MaxBareWait)
	}
	if bare {
		l.reason = fmt.Sprintf("429 without Retry-After: %d in flight at most, waiting %s", int(l.window), wait)
	} else {
		l.reason = fmt.Sprintf("429, waiting %s", wait)
	}
	l.notBefore = laterOf(l.notBefore, now.Add(wait))
	return max(wait, l.notBefore.Sub(now))
}

// meter learns the quota's refill interval, and while the quota runs low
// (fewer requests left than the lane may have in flight) keeps the lane to
// it: a copy of the gateway's bucket lets a send through per token, so the
// lane slows down before a 429 and still spends at once what a pause saved.
// The copy is set from the gateway's count when metering starts and
// emptied by a 429; an answer's count is as old as the answer is slow, so
// it corrects nothing else.
//
// With limit L, remaining R and reset (the time until the quota is whole
// again), the quota holds between R and R+1 requests' worth, so one
// request's refill takes at least reset/(L-R), and exactly that when the
// quota was whole before the request: the largest such value seen is the
// interval learnt. A lane that keeps to it leaves the quota filling up, so
// it keeps seeing that exact case; one that went too fast meets a 429.
func (l *lane) meter(q quota, now time.Time) {
	if q.limit <= 0 {
		l.metered = false
		return
	}
	if q.limit != l.quotaLimit { // another quota: learn it afresh
		l.quotaLimit, l.refill = q.limit, 0
	}
	if spent := time.Duration(q.limit - q.remaining); spent >= 1 {
		l.refill = max(l.refill, q.reset/spent)
	}
	if q.remaining > int(l.window) {
		l.metered = false
		return
	}
	if !l.metered {
		l.metered, l.tokens, l.tokensAt = true, float64(q.remaining), now
	}
	if q.remaining <= 0 {
		l.reason = fmt.Sprintf("quota spent: one request per %s", l.interval().Round(time.Millisecond))
	}
}

// interval is the time the lane lets pass per request while metered: the
// refill learnt with 2% to spare (a network spaces requests less evenly
// than they left), never less than a 429 has shown to be needed.
func (l *lane) interval() time.Duration {
	return max(l.refill+l.refill/50, l.floor)
}

// refillTokens brings the lane's copy of the bucket up to now.
func (l *lane) refillTokens(now time.Time) {
	if iv := l.interval(); iv > 0 && now.After(l.tokensAt) {
		l.tokens = min(l.tokens+float64(now.Sub(l.tokensAt))/float64(iv), float64(l.quotaLimit))
	}
	l.tokensAt = now
}

// quota is what rate-limit headers say of the request limit.
type quota struct {
	limit, remaining int
	reset            time.Duration // until the quota is whole again
}

// readQuota reads the request quota from either vendor's headers:
// x-ratelimit-{limit,remaining,reset}-requests (reset a duration such as
// 1s, 6m0s or 20ms) or anthropic-ratelimit-requests-{limit,remaining,reset}
// (reset an RFC 3339 time).
func readQuota(h http.Header, now time.Time) (quota, bool) {
	if h == nil {
		return quota{}, false
	}
	if q, ok := readQuotaStyle(h, "x-ratelimit-limit-requests", "x-ratelimit-remaining-requests", "x-ratelimit-reset-requests", now); ok {
		return q, true
	}
	return readQuotaStyle(h, "anthropic-ratelimit-requests-limit", "anthropic-ratelimit-requests-remaining", "anthropic-ratelimit-requests-reset", now)
}

func readQuotaStyle(h http.Header, limitName, remainingName, resetName string, now time.Time) (quota, bool) {
	limit, err1 := strconv.Atoi(strings.TrimSpace(h.Get(limitName)))
	remaining, err2 := strconv.Atoi(strings.TrimSpace(h.Get(remainingName)))
	if err1 != nil || err2 != nil || limit <= 0 {
		return quota{}, false
	}
	reset, ok := parseReset(strings.TrimSpace(h.Get(resetName)), now)
	if !ok {
		return quota{}, false
	}
	return quota{limit: limit, remaining: max(remaining, 0), reset: reset}, true
}

// parseReset reads a reset as a duration (1s, 6m0s, 20ms), a number of
// seconds, or an RFC 3339 time.
func parseReset(s string, now time.Time) (time.Duration, bool) {
	if s == "" {
		return 0, false
	}
	if d, err := time.ParseDuration(s); err == nil {
		return max(d, 0), true
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return max(time.Duration(f*float64(time.Second)), 0), true
	}
	if at, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return max(at.Sub(now), 0), true
	}
	return 0, false
}

// RetryAfter reads Retry-After (seconds or an HTTP date); asked is false
// when there is none that can be read.
func RetryAfter(h string, now time.Time) (wait time.Duration, asked bool) {
	if h == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(h, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second)), true
	}
	if at, err := http.ParseTime(h); err == nil {
		return max(at.Sub(now), 0), true
	}
	return 0, false
}

// Waiting describes the lanes that wait on the limit now, for the progress
// line: key, family, until when and why. Empty when none does.
func (p *Pacer) Waiting() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.o.Now()
	var out []string
	for k, l := range p.lanes {
		if d := l.notBefore.Sub(now); d > 0 {
			out = append(out, fmt.Sprintf("%s key, %s: %s more (%s)", k.key, k.family, d.Round(100*time.Millisecond), l.reason))
		}
	}
	slices.Sort(out)
	return out
}

func laterOf(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
