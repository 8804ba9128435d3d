package refgateway

import (
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func perSec(n float64) Rate { return Rate{N: n, Per: time.Second} }
func perMin(n float64) Rate { return Rate{N: n, Per: time.Minute} }

func TestParseRateLimit(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		spec string
		want RateLimit
	}{
		{"", RateLimit{}},
		{"  ", RateLimit{}},
		{"2/s", RateLimit{Default: perSec(2)}},
		{"10/m", RateLimit{Default: perMin(10)}},
		{"0.5/s", RateLimit{Default: perSec(0.5)}},
		{".5/m", RateLimit{Default: perMin(0.5)}},
		{"2/s,burst=2,images=10/m", RateLimit{Default: perSec(2), Burst: 2, Images: perMin(10)}},
		{" 1/m , chat = 3/s , burst=5 ,", RateLimit{Default: perMin(1), Burst: 5, Chat: perSec(3)}},
		{"1/s,models=1/m,chat=2/m,messages=3/m,images=4/m,responses=5/m", RateLimit{
			Default: perSec(1), Models: perMin(1), Chat: perMin(2), Messages: perMin(3), Images: perMin(4), Responses: perMin(5)}},
		{"1000000/s,burst=10000", RateLimit{Default: perSec(1000000), Burst: 10000}},
	} {
		t.Run(tt.spec, func(t *testing.T) {
			t.Parallel()
			got, err := ParseRateLimit(tt.spec)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseRateLimitErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ spec, says string }{
		{"3/h", `rate limit "3/h": want N/s or N/m`},
		{"2", `rate limit "2": want N/s or N/m`},
		{"-1/s", `rate limit "-1/s": want N/s or N/m`},
		{"1e3/s", `rate limit "1e3/s": want N/s or N/m`},
		{"0/s", `rate limit "0/s": want N/s or N/m with N a positive number`},
		{"2000000/s", `rate limit "2000000/s": more than 1000000 requests a second`},
		{"0.0001/m", `rate limit "0.0001/m": less than one request a day`},
		{"burst=2", `rate limit "burst=2": want a RATE (N/s or N/m) first`},
		{"chat=1/s", `rate limit "chat=1/s": want a RATE (N/s or N/m) first`},
		{"2/s,3/s", `rate limit "3/s": after the first RATE, want burst=N or CLASS=RATE`},
		{"2/s,video=1/s", `rate limit "video=1/s": unknown class "video" (want burst or one of models, chat, messages, images, responses)`},
		{"2/s,images.edits=1/s", `unknown class "images.edits"`},
		{"2/s,chat=fast", `rate limit "chat=fast": want N/s or N/m`},
		{"2/s,chat=1/h", `rate limit "chat=1/h": want N/s or N/m`},
		{"2/s,burst=0", `rate limit "burst=0": burst wants an integer from 1 to 10000`},
		{"2/s,burst=1.5", `rate limit "burst=1.5": burst wants an integer`},
		{"2/s,burst=x", `rate limit "burst=x": burst wants an integer`},
		{"2/s,burst=10001", `rate limit "burst=10001": burst wants an integer from 1 to 10000`},
		{"2/s,burst=2,burst=3", `rate limit "burst=3": burst is given twice`},
		{"2/s,chat=1/s,chat=2/s", `rate limit "chat=2/s": chat is given twice`},
	} {
		t.Run(tt.spec, func(t *testing.T) {
			t.Parallel()
			_, err := ParseRateLimit(tt.spec)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.says)
		})
	}
}

func TestRateLimitString(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ spec, want string }{
		{"", "none"},
		{"2/s,burst=2,images=10/m", "2/s per key and class, burst 2, images 10/m"},
		{"0.5/s", "0.5/s per key and class, burst 1"},
		{"1/m,chat=1/m,responses=3/s", "1/m per key and class, burst 1, responses 3/s"},
	} {
		l, err := ParseRateLimit(tt.spec)
		require.NoError(t, err)
		assert.Equal(t, tt.want, l.String(), tt.spec)
		assert.Equal(t, tt.spec != "", l.Enabled(), tt.spec)
	}
	only := RateLimit{Chat: perSec(1)}
	assert.True(t, only.Enabled())
	assert.Equal(t, perSec(1), only.Rate(ClassChat))
	assert.Equal(t, Rate{}, only.Rate(ClassModels), "a class with neither its rate nor a default is not limited")
	assert.Equal(t, Rate{}, only.Rate("video"))
}

func TestRateLimitValidateInNew(t *testing.T) {
	t.Parallel()
	for _, rl := range []RateLimit{
		{Default: perSec(1), Burst: maxBurst + 1},
		{Default: perSec(1), Burst: -1},
		{Chat: Rate{N: 1, Per: time.Hour}},
		{Images: perSec(1e9)},
	} {
		_, err := New(Config{RateLimit: rl})
		assert.Error(t, err, "%+v", rl)
	}
	g, err := New(Config{})
	require.NoError(t, err)
	assert.Nil(t, g.limiter, "the zero RateLimit is no limit")
}

// fakeClock is a settable clock for a limiter.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

var clockStart = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

func testLimiter(t *testing.T, spec string) (*limiter, *fakeClock) {
	t.Helper()
	rl, err := ParseRateLimit(spec)
	require.NoError(t, err)
	l := newLimiter(rl)
	clk := &fakeClock{t: clockStart}
	l.now = clk.now
	return l, clk
}

// step is one request to a limiter's bucket, after advancing the clock.
type step struct {
	after      time.Duration
	key, class string
	ok         bool
	remaining  int
	reset      time.Duration
	retryAfter int64 // when refused
}

func TestRateLimitBucket(t *testing.T) {
	t.Parallel()
	const text, img = KindText, KindImage
	for _, tt := range []struct {
		name, spec string
		steps      []step
	}{
		{"burst then 429, refill", "2/s,burst=2", []step{
			{0, text, ClassChat, true, 1, 500 * time.Millisecond, 0},
			{0, text, ClassChat, true, 0, time.Second, 0},
			{0, text, ClassChat, false, 0, time.Second, 1},
			{250 * time.Millisecond, text, ClassChat, false, 0, 750 * time.Millisecond, 1},
			{250 * time.Millisecond, text, ClassChat, true, 0, time.Second, 0},
			{2 * time.Second, text, ClassChat, true, 1, 500 * time.Millisecond, 0},
		}},
		{"a 429 takes no token", "1/m", []step{
			{0, text, ClassModels, true, 0, time.Minute, 0},
			{0, text, ClassModels, false, 0, time.Minute, 60},
			{30 * time.Second, text, ClassModels, false, 0, 30 * time.Second, 30},
			{29 * time.Second, text, ClassModels, false, 0, time.Second, 1},
			{time.Second, text, ClassModels, true, 0, time.Minute, 0},
		}},
		{"Retry-After is the ceiling of the wait, at least 1", "0.4/s", []step{
			{0, text, ClassChat, true, 0, 2500 * time.Millisecond, 0},
			{0, text, ClassChat, false, 0, 2500 * time.Millisecond, 3},
			{2 * time.Second, text, ClassChat, false, 0, 500 * time.Millisecond, 1},
			{499 * time.Millisecond, text, ClassChat, false, 0, time.Millisecond, 1},
			{time.Millisecond, text, ClassChat, true, 0, 2500 * time.Millisecond, 0},
		}},
		{"classes and keys have their own buckets", "1/m", []step{
			{0, text, ClassChat, true, 0, time.Minute, 0},
			{0, text, ClassChat, false, 0, time.Minute, 60},
			{0, text, ClassModels, true, 0, time.Minute, 0},
			{0, text, ClassResponses, true, 0, time.Minute, 0},
			{0, img, ClassChat, true, 0, time.Minute, 0},
			{0, img, ClassModels, true, 0, time.Minute, 0},
			{0, img, ClassModels, false, 0, time.Minute, 60},
		}},
		{"a class override", "1/s,burst=3,images=10/m", []step{
			{0, img, ClassImages, true, 2, 6 * time.Second, 0},
			{0, img, ClassImages, true, 1, 12 * time.Second, 0},
			{0, img, ClassImages, true, 0, 18 * time.Second, 0},
			{0, img, ClassImages, false, 0, 18 * time.Second, 6},
			{0, img, ClassModels, true, 2, time.Second, 0},
			{3 * time.Second, img, ClassImages, false, 0, 15 * time.Second, 3},
			{3 * time.Second, img, ClassImages, true, 0, 18 * time.Second, 0},
		}},
		{"partial refill keeps whole tokens", "1/s,burst=3", []step{
			{0, text, ClassChat, true, 2, time.Second, 0},
			{0, text, ClassChat, true, 1, 2 * time.Second, 0},
			{0, text, ClassChat, true, 0, 3 * time.Second, 0},
			{1500 * time.Millisecond, text, ClassChat, true, 0, 2500 * time.Millisecond, 0},
			{500 * time.Millisecond, text, ClassChat, true, 0, 3 * time.Second, 0},
			{10 * time.Second, text, ClassChat, true, 2, time.Second, 0},
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l, clk := testLimiter(t, tt.spec)
			for i, s := range tt.steps {
				clk.advance(s.after)
				a, limited := l.take(s.key, s.class)
				require.True(t, limited, "step %d", i)
				assert.Equal(t, s.ok, a.ok, "step %d: admitted", i)
				assert.Equal(t, s.remaining, a.remaining, "step %d: remaining", i)
				assert.Equal(t, s.reset, a.reset, "step %d: reset", i)
				if !s.ok {
					assert.Equal(t, s.retryAfter, a.retryAfter(), "step %d: Retry-After", i)
				}
			}
		})
	}
}

func TestRateLimitUnlimitedClass(t *testing.T) {
	t.Parallel()
	l := newLimiter(RateLimit{Chat: perSec(1)})
	_, limited := l.take(KindText, ClassModels)
	assert.False(t, limited)
	a, limited := l.take(KindText, ClassChat)
	assert.True(t, limited)
	assert.True(t, a.ok)
}

func TestRateLimitHeaders(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, spec string
		takes      int
		at         time.Time
		want       map[string]string
	}{
		{"ms reset", "2/s,burst=2", 1, time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.FixedZone("CET", 3600)), map[string]string{
			HeaderLimitRequests: "2", HeaderRemainingRequests: "1", HeaderResetRequests: "500ms",
			HeaderAnthropicLimit: "2", HeaderAnthropicRemain: "1", HeaderAnthropicReset: "2026-01-02T02:04:05.623Z",
		}},
		{"second reset", "2/s,burst=2", 2, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), map[string]string{
			HeaderLimitRequests: "2", HeaderRemainingRequests: "0", HeaderResetRequests: "1s",
			HeaderAnthropicLimit: "2", HeaderAnthropicRemain: "0", HeaderAnthropicReset: "2026-01-02T03:04:06Z",
		}},
		{"refused", "1/s", 2, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), map[string]string{
			HeaderLimitRequests: "1", HeaderRemainingRequests: "0", HeaderResetRequests: "1s",
			HeaderAnthropicLimit: "1", HeaderAnthropicRemain: "0", HeaderAnthropicReset: "2026-01-02T03:04:06Z",
		}},
		{"minutes reset", "1/m,burst=6", 6, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), map[string]string{
			HeaderLimitRequests: "6", HeaderRemainingRequests: "0", HeaderResetRequests: "6m0s",
			HeaderAnthropicLimit: "6", HeaderAnthropicRemain: "0", HeaderAnthropicReset: "2026-01-02T03:10:05Z",
		}},
		{"reset rounded to ms", "3/s", 1, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), map[string]string{
			HeaderResetRequests: "333ms", HeaderAnthropicReset: "2026-01-02T03:04:05.333Z",
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l, clk := testLimiter(t, tt.spec)
			clk.t = tt.at
			var a admission
			for range tt.takes {
				a, _ = l.take(KindText, ClassChat)
			}
			h := http.Header{}
			a.setHeaders(h)
			for k, v := range tt.want {
				assert.Equal(t, v, h.Get(k), k)
			}
		})
	}
}

// Concurrent requests of one bucket never admit more than the burst (run
// with -race).
func TestRateLimitConcurrent(t *testing.T) {
	t.Parallel()
	l, _ := testLimiter(t, "1/m,burst=5")
	var admitted atomic.Int64
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			if a, _ := l.take(KindText, ClassChat); a.ok {
				admitted.Add(1)
			}
		})
	}
	wg.Wait()
	assert.Equal(t, int64(5), admitted.Load())
}

// The gateway on loopback: headers on every answer of a limited route, 429
// with Retry-After over the limit, 401 and 404 outside any bucket.
func TestRateLimitGateway(t *testing.T) {
	t.Parallel()
	s := newServer(t, Config{RateLimit: RateLimit{Default: perMin(1)}})
	headers := []string{HeaderLimitRequests, HeaderRemainingRequests, HeaderResetRequests,
		HeaderAnthropicLimit, HeaderAnthropicRemain, HeaderAnthropicReset}

	bad := s.do(t, "GET", "/v1/models", "sk-wrong", nil)
	assert.Equal(t, http.StatusUnauthorized, bad.status)
	for _, h := range headers {
		assert.Empty(t, bad.header.Get(h), "a 401 has no %s", h)
	}
	unknown := s.do(t, "GET", "/v1/nowhere", keys.Text, nil)
	assert.Equal(t, http.StatusNotFound, unknown.status)
	assert.Empty(t, unknown.header.Get(HeaderLimitRequests))

	before := time.Now()
	first := s.do(t, "GET", "/v1/models", keys.Text, nil)
	after := time.Now()
	require.Equal(t, http.StatusOK, first.status, "%s", first.body)
	assert.Equal(t, "1", first.header.Get(HeaderLimitRequests))
	assert.Equal(t, "0", first.header.Get(HeaderRemainingRequests))
	assert.Equal(t, "1m0s", first.header.Get(HeaderResetRequests))
	assert.Equal(t, "1", first.header.Get(HeaderAnthropicLimit))
	assert.Equal(t, "0", first.header.Get(HeaderAnthropicRemain))
	full, err := time.Parse(time.RFC3339Nano, first.header.Get(HeaderAnthropicReset))
	require.NoError(t, err)
	// A minute from the request, whenever it was answered: between a
	// minute after the send and a minute after the answer (the header
	// keeps whole seconds at the least).
	assert.False(t, full.Before(before.Add(time.Minute-time.Second)), "reset %s, sent %s", full, before)
	assert.False(t, full.After(after.Add(time.Minute)), "reset %s, answered %s", full, after)

	second := s.do(t, "GET", "/v1/models", keys.Text, nil)
	require.Equal(t, http.StatusTooManyRequests, second.status, "%s", second.body)
	checkErrorBody(t, second, "/v1/models")
	ra, err := strconv.Atoi(second.header.Get("Retry-After"))
	require.NoError(t, err, "Retry-After %q", second.header.Get("Retry-After"))
	assert.InDelta(t, 60, ra, 2)
	for _, h := range headers {
		assert.NotEmpty(t, second.header.Get(h), h)
	}
	assert.Equal(t, "0", second.header.Get(HeaderRemainingRequests))
	m := second.json(t)
	code, _ := field(m, "error.code")
	assert.Equal(t, "rate_limit_exceeded", code)
	msg, _ := field(m, "error.message")
	assert.Contains(t, msg, "rate limit exceeded: 1/m, burst 1, for the models class of this key")

	// Another class of the same key, and the same class of another key,
	// have buckets of their own.
	chat := s.do(t, "POST", "/v1/chat/completions", keys.Text, map[string]any{
		"model": "gen-5.5", "messages": []any{map[string]any{"role": "user", "content": "Say hello"}}})
	assert.Equal(t, http.StatusOK, chat.status, "%s", chat.body)
	assert.Equal(t, "0", chat.header.Get(HeaderRemainingRequests))
	other := s.do(t, "GET", "/v1/models", keys.Image, nil)
	assert.Equal(t, http.StatusOK, other.status, "%s", other.body)

	// An error answer of a limited route takes a token and carries the
	// headers; the next one is refused in the Anthropic dialect.
	invalid := s.do(t, "POST", "/v1/messages", keys.Messages, []byte(`{`))
	assert.Equal(t, http.StatusBadRequest, invalid.status)
	assert.Equal(t, "0", invalid.header.Get(HeaderAnthropicRemain))
	refused := s.do(t, "POST", "/v1/messages", keys.Messages, []byte(`{`))
	require.Equal(t, http.StatusTooManyRequests, refused.status)
	checkErrorBody(t, refused, "/v1/messages")
	typ, _ := field(refused.json(t), "error.type")
	assert.Equal(t, "rate_limit_error", typ)
	assert.NotEmpty(t, refused.header.Get("Retry-After"))
}
