package pace

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// clock is a fake clock the tests move by hand.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func newTestPacer(concurrency int) (*Pacer, *clock) {
	c := &clock{now: time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)}
	return New(Options{Concurrency: concurrency, BareWait: time.Second, MaxBareWait: 4 * time.Second, Now: c.Now}), c
}

func header(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

// open reports whether the lane lets a send through now, without waiting;
// a let-through ticket is released at once.
func open(t *testing.T, p *Pacer, key string, f Family) bool {
	t.Helper()
	tk, err := p.Acquire(context.Background(), key, f, 0)
	if err != nil {
		require.ErrorIs(t, err, ErrOverBudget)
		return false
	}
	tk.Release()
	return true
}

func TestPacerLearns(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		status int
		header func(now time.Time) http.Header
		// retryIn is what Observe returns; closed how long the lane sends
		// nothing after it.
		retryIn, closed time.Duration
	}{
		{"Retry-After seconds", 429, func(time.Time) http.Header { return header("Retry-After", "2") }, 2 * time.Second, 2 * time.Second},
		{"Retry-After HTTP date", 429, func(now time.Time) http.Header {
			return header("Retry-After", now.Add(3*time.Second).Format(http.TimeFormat))
		}, 3 * time.Second, 3 * time.Second},
		// 2 of 2 spent, whole again in 1 s: one request's refill takes at
		// least 500 ms; the lane keeps to it, 2% to spare.
		{"OpenAI headers: quota spent on a 200", 200, func(time.Time) http.Header {
			return header("x-ratelimit-limit-requests", "2", "x-ratelimit-remaining-requests", "0", "x-ratelimit-reset-requests", "1s")
		}, 0, 510 * time.Millisecond},
		{"Anthropic headers: quota spent on a 200", 200, func(now time.Time) http.Header {
			return header("anthropic-ratelimit-requests-limit", "2", "anthropic-ratelimit-requests-remaining", "0",
				"anthropic-ratelimit-requests-reset", now.Add(time.Second).Format(time.RFC3339Nano))
		}, 0, 510 * time.Millisecond},
		{"OpenAI headers: quota left", 200, func(time.Time) http.Header {
			return header("x-ratelimit-limit-requests", "500", "x-ratelimit-remaining-requests", "499", "x-ratelimit-reset-requests", "120ms")
		}, 0, 0},
		// 4 of 4 spent, whole in 6 min: at least 90 s per request, 2% to
		// spare, and 5% more for the 429 that came at that spacing.
		{"429 with spent quota headers and no Retry-After", 429, func(time.Time) http.Header {
			return header("x-ratelimit-limit-requests", "4", "x-ratelimit-remaining-requests", "0", "x-ratelimit-reset-requests", "6m0s")
		}, 96390 * time.Millisecond, 96390 * time.Millisecond},
		{"bare 429", 429, func(time.Time) http.Header { return http.Header{} }, time.Second, time.Second},
		{"a 500 is no limit", 500, func(time.Time) http.Header { return http.Header{} }, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, c := newTestPacer(4)
			tk, err := p.Acquire(context.Background(), "image", Images, time.Minute)
			require.NoError(t, err)
			assert.Zero(t, tk.Waited)
			assert.Equal(t, tc.retryIn, tk.Observe(tc.status, tc.header(c.Now())))
			tk.Release()
			if tc.closed > 0 {
				assert.False(t, open(t, p, "image", Images), "the lane must be closed right after")
				c.advance(tc.closed - time.Millisecond)
				assert.False(t, open(t, p, "image", Images), "the lane must stay closed until the wait is over")
				c.advance(time.Millisecond)
			}
			assert.True(t, open(t, p, "image", Images), "the lane must open once the wait is over")
			// Other lanes never wait on this one.
			assert.True(t, open(t, p, "image", Chat))
			assert.True(t, open(t, p, "text", Images))
		})
	}
}

func TestPacerKeepsToTheQuotaWhileItRunsLow(t *testing.T) {
	t.Parallel()
	p, c := newTestPacer(4)
	send := func(status int, h http.Header) time.Duration {
		tk, err := p.Acquire(context.Background(), "text", Chat, 0)
		require.NoError(t, err)
		defer tk.Release()
		return tk.Observe(status, h)
	}
	quota := func(remaining int, reset string) http.Header {
		return header("x-ratelimit-limit-requests", "2", "x-ratelimit-remaining-requests", fmt.Sprint(remaining), "x-ratelimit-reset-requests", reset)
	}
	// 2 of 2 spent, whole in 1 s: a refill takes at least 500 ms; the lane
	// lets one send through per 510 ms (2% to spare), never two at once.
	send(200, quota(0, "1s"))
	c.advance(509 * time.Millisecond)
	assert.False(t, open(t, p, "text", Chat))
	c.advance(time.Millisecond)
	assert.True(t, open(t, p, "text", Chat))
	assert.False(t, open(t, p, "text", Chat))

	// A pause fills the lane's copy of the bucket up to the quota: two at
	// once, then one per interval.
	c.advance(time.Hour)
	assert.True(t, open(t, p, "text", Chat))
	assert.True(t, open(t, p, "text", Chat))
	assert.False(t, open(t, p, "text", Chat))
	c.advance(510 * time.Millisecond)
	assert.True(t, open(t, p, "text", Chat))

	// The largest refill seen is the one learnt: 0.9 left and 550 ms to
	// whole says at least 275 ms, nothing new.
	c.advance(time.Hour)
	send(200, quota(0, "550ms"))
	send(200, quota(0, "550ms"))
	assert.False(t, open(t, p, "text", Chat), "2 sent, none left")
	c.advance(509 * time.Millisecond)
	assert.False(t, open(t, p, "text", Chat))
	c.advance(time.Millisecond)
	assert.True(t, open(t, p, "text", Chat))

	// A 429 while keeping to that interval: it was too short, 5% more
	// (535.5 ms); and it empties the copy of the bucket.
	c.advance(time.Hour)
	assert.Equal(t, time.Second, send(429, header("Retry-After", "1",
		"x-ratelimit-limit-requests", "2", "x-ratelimit-remaining-requests", "0", "x-ratelimit-reset-requests", "990ms")))
	c.advance(999 * time.Millisecond)
	assert.False(t, open(t, p, "text", Chat), "Retry-After holds")
	c.advance(time.Millisecond)
	assert.True(t, open(t, p, "text", Chat), "1.87 requests refilled in the second waited")
	assert.False(t, open(t, p, "text", Chat))
	c.advance(70 * time.Millisecond)
	assert.False(t, open(t, p, "text", Chat))
	c.advance(2 * time.Millisecond)
	assert.True(t, open(t, p, "text", Chat))

	// Plenty left: no metering at all.
	c.advance(time.Hour)
	send(200, header("x-ratelimit-limit-requests", "500", "x-ratelimit-remaining-requests", "400", "x-ratelimit-reset-requests", "12s"))
	for range 4 {
		assert.True(t, open(t, p, "text", Chat))
	}
}

// A 429 to a send already in flight when the lane's last 429 came is the
// same refusal seen again: it neither doubles the wait nor halves the
// window once more.
func TestPacerConcurrent429sCountOnce(t *testing.T) {
	t.Parallel()
	p, c := newTestPacer(4)
	var held []*Ticket
	for range 4 {
		tk, err := p.Acquire(context.Background(), "image", Images, 0)
		require.NoError(t, err)
		held = append(held, tk)
	}
	c.advance(10 * time.Millisecond)
	for _, tk := range held {
		assert.Equal(t, time.Second, tk.Observe(429, header("Retry-After", "1")), "each waits what it asked, no more")
		tk.Release()
	}
	c.advance(time.Second)
	// The window is whole: 4 sends at once.
	for range 4 {
		tk, err := p.Acquire(context.Background(), "image", Images, 0)
		require.NoError(t, err)
		defer tk.Release()
	}
}

func TestPacerBare429sHalveTheCallsInFlight(t *testing.T) {
	t.Parallel()
	p, c := newTestPacer(4)
	acquire := func() *Ticket {
		tk, err := p.Acquire(context.Background(), "image", Images, time.Minute)
		require.NoError(t, err)
		return tk
	}
	held := []*Ticket{acquire(), acquire(), acquire()}
	tk := acquire()
	// Four in flight: a fifth waits for a place (here, until ctx ends).
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := p.Acquire(ctx, "image", Images, time.Minute)
	require.ErrorIs(t, err, context.DeadlineExceeded)

	// Bare 429s: 2 in flight, then 1; the wait doubles up to its cap.
	assert.Equal(t, time.Second, tk.Observe(429, nil))
	tk.Release()
	for _, h := range held {
		h.Release()
	}
	c.advance(time.Second)
	a, b := acquire(), acquire()
	_, err = p.Acquire(ctx, "image", Images, time.Minute)
	require.Error(t, err, "2 in flight at most after one bare 429")
	assert.Equal(t, 2*time.Second, a.Observe(429, nil))
	assert.Equal(t, 4*time.Second, b.Observe(429, nil))
	a.Release()
	b.Release()
	c.advance(4 * time.Second)
	tk = acquire()
	assert.Equal(t, 4*time.Second, tk.Observe(429, nil), "capped by MaxBareWait")
	tk.Release()
	c.advance(4 * time.Second)

	// Answers open the window again, additively, up to the concurrency.
	for range 20 {
		tk := acquire()
		tk.Observe(200, nil)
		tk.Release()
	}
	held = []*Ticket{acquire(), acquire(), acquire(), acquire()}
	_, err = p.Acquire(ctx, "image", Images, time.Minute)
	require.Error(t, err, "never above the concurrency")
	for _, h := range held {
		h.Release()
	}
}

func TestPacer429sInARowWaitLongerEachTime(t *testing.T) {
	t.Parallel()
	p, c := newTestPacer(4)
	// Retry-After: 0 again and again: at once, then 1 s, 2 s, 4 s (the cap).
	for _, want := range []time.Duration{0, time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second} {
		tk, err := p.Acquire(context.Background(), "text", Chat, 0)
		require.NoError(t, err)
		assert.Equal(t, want, tk.Observe(429, header("Retry-After", "0")))
		tk.Release()
		c.advance(want)
	}
	// An answer ends the run of 429s.
	tk, err := p.Acquire(context.Background(), "text", Chat, 0)
	require.NoError(t, err)
	tk.Observe(200, nil)
	tk.Release()
	tk, err = p.Acquire(context.Background(), "text", Chat, 0)
	require.NoError(t, err)
	assert.Zero(t, tk.Observe(429, header("Retry-After", "0")))
	tk.Release()
}

func TestPacerBudget(t *testing.T) {
	t.Parallel()
	p, _ := newTestPacer(4)
	tk, err := p.Acquire(context.Background(), "messages", Messages, 15*time.Minute)
	require.NoError(t, err)
	assert.Equal(t, 20*time.Minute, tk.Observe(429, header("Retry-After", "1200")))
	tk.Release()
	_, err = p.Acquire(context.Background(), "messages", Messages, 15*time.Minute)
	require.ErrorIs(t, err, ErrOverBudget, "a wait past --max-wait is not waited")
	assert.Contains(t, err.Error(), "the messages key's messages requests wait until")
	waiting := p.Waiting()
	require.Len(t, waiting, 1)
	assert.Contains(t, waiting[0], "messages key, messages: 20m0s more (429, waiting 20m0s)")
}

func TestPacerWaitsAndReportsTheWait(t *testing.T) {
	t.Parallel()
	// A real clock: the lane opens 30 ms after a Retry-After of 0.03 s,
	// so the next send comes no sooner than 30 ms after the 429 was
	// observed (the monotonic clock), and the ticket says it waited. The
	// minute is a hang guard only.
	p := New(Options{Concurrency: 2})
	tk, err := p.Acquire(context.Background(), "alt", Messages, time.Minute)
	require.NoError(t, err)
	observed := time.Now()
	tk.Observe(429, header("Retry-After", "0.03"))
	tk.Release()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tk, err = p.Acquire(ctx, "alt", Messages, time.Minute)
	require.NoError(t, err)
	assert.False(t, time.Now().Before(observed.Add(30*time.Millisecond)), "sent before the lane opened")
	assert.Positive(t, tk.Waited, "the ticket says it waited")
	tk.Release()
}

func TestFamilyOf(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]Family{
		"/v1/models": Models, "/v1/chat/completions": Chat, "/v1/messages": Messages,
		"/v1/images/generations": Images, "/v1/images/edits": Images, "/v1/responses": Responses,
	} {
		assert.Equal(t, want, FamilyOf(path), path)
	}
}

func TestReadQuota(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		h    http.Header
		want quota
		ok   bool
	}{
		{"OpenAI duration", header("x-ratelimit-limit-requests", "60", "x-ratelimit-remaining-requests", "59", "x-ratelimit-reset-requests", "6m0s"),
			quota{60, 59, 6 * time.Minute}, true},
		{"OpenAI milliseconds", header("x-ratelimit-limit-requests", "10", "x-ratelimit-remaining-requests", "0", "x-ratelimit-reset-requests", "20ms"),
			quota{10, 0, 20 * time.Millisecond}, true},
		{"Anthropic RFC 3339", header("anthropic-ratelimit-requests-limit", "50", "anthropic-ratelimit-requests-remaining", "3",
			"anthropic-ratelimit-requests-reset", "2026-11-24T12:00:02Z"), quota{50, 3, 2 * time.Second}, true},
		{"a reset in the past is now", header("anthropic-ratelimit-requests-limit", "50", "anthropic-ratelimit-requests-remaining", "3",
			"anthropic-ratelimit-requests-reset", "2026-11-24T11:00:00Z"), quota{50, 3, 0}, true},
		{"no reset", header("x-ratelimit-limit-requests", "60", "x-ratelimit-remaining-requests", "59"), quota{}, false},
		{"not numbers", header("x-ratelimit-limit-requests", "many", "x-ratelimit-remaining-requests", "59", "x-ratelimit-reset-requests", "1s"), quota{}, false},
		{"none", http.Header{}, quota{}, false},
	} {
		got, ok := readQuota(tc.h, now)
		assert.Equal(t, tc.ok, ok, tc.name)
		assert.Equal(t, tc.want, got, tc.name)
	}
}

// A wait for a place in flight is bounded by the budget (--max-wait) as a
// wait for the lane's opening is: a call held up by another in flight
// ends throttled, it does not wait for ever; a place freed within the
// budget lets it through.
func TestPacerPlaceInFlightWaitIsBounded(t *testing.T) {
	t.Parallel()
	p := New(Options{Concurrency: 1})
	held, err := p.Acquire(context.Background(), "alt", Messages, time.Minute)
	require.NoError(t, err)
	_, err = p.Acquire(context.Background(), "alt", Messages, 50*time.Millisecond)
	require.ErrorIs(t, err, ErrOverBudget)
	assert.Contains(t, err.Error(), "1 in flight")

	go func() { time.Sleep(20 * time.Millisecond); held.Release() }()
	tk, err := p.Acquire(context.Background(), "alt", Messages, time.Minute)
	require.NoError(t, err, "the place freed within the budget")
	tk.Release()
}
