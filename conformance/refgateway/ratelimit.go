package refgateway

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Rate is N requests per Per (time.Second or time.Minute). The zero Rate is
// no limit.
type Rate struct {
	N   float64
	Per time.Duration
}

// String gives the rate as ParseRateLimit reads it: "2/s", "0.5/s", "10/m".
func (r Rate) String() string {
	if r.zero() {
		return "unlimited"
	}
	unit := "s"
	if r.Per == time.Minute {
		unit = "m"
	}
	return strconv.FormatFloat(r.N, 'f', -1, 64) + "/" + unit
}

func (r Rate) zero() bool { return r.N <= 0 || r.Per <= 0 }

// interval is the time one token takes to refill.
func (r Rate) interval() time.Duration {
	return time.Duration(math.Round(float64(r.Per) / r.N))
}

// Bounds of a rate limit, so that a full bucket's refill time fits a
// time.Duration with room to spare.
const (
	maxBurst        = 10000
	minRateInterval = time.Microsecond // at most 1000000/s
	maxRateInterval = 24 * time.Hour   // at least one request a day
)

// Rate limit classes: the endpoints sharing one bucket of a key.
const (
	ClassModels    = "models"    // GET /v1/models
	ClassChat      = "chat"      // POST /v1/chat/completions
	ClassMessages  = "messages"  // POST /v1/messages
	ClassImages    = "images"    // POST /v1/images/generations and /v1/images/edits
	ClassResponses = "responses" // POST /v1/responses
)

// rateClasses lists the classes in the order String and errors name them.
var rateClasses = []string{ClassModels, ClassChat, ClassMessages, ClassImages, ClassResponses}

// RateLimit limits the requests of each bearer key: one token bucket per key
// and class, holding Burst tokens (0 → 1), starting full and refilled
// continuously at the class's rate. A class's zero Rate takes Default; a
// class with neither is not limited. The zero RateLimit is no limit.
type RateLimit struct {
	Default   Rate
	Burst     int
	Models    Rate
	Chat      Rate
	Messages  Rate
	Images    Rate
	Responses Rate
}

// class points at the override of a class; nil for an unknown class.
func (l *RateLimit) class(name string) *Rate {
	switch name {
	case ClassModels:
		return &l.Models
	case ClassChat:
		return &l.Chat
	case ClassMessages:
		return &l.Messages
	case ClassImages:
		return &l.Images
	case ClassResponses:
		return &l.Responses
	}
	return nil
}

// Rate is the rate of a class: its override, else Default; zero when the
// class is not limited.
func (l RateLimit) Rate(class string) Rate {
	r := l.class(class)
	switch {
	case r == nil:
		return Rate{}
	case !r.zero():
		return *r
	}
	return l.Default
}

// validate checks the bounds ParseRateLimit enforces, for a RateLimit built
// in code.
func (l RateLimit) validate() error {
	if l.Burst < 0 || l.Burst > maxBurst {
		return fmt.Errorf("rate limit: burst %d: want an integer from 1 to %d", l.Burst, maxBurst)
	}
	for _, c := range rateClasses {
		if r := l.Rate(c); !r.zero() {
			if err := r.check(); err != nil {
				return fmt.Errorf("rate limit of %s: %w", c, err)
			}
		}
	}
	return nil
}

// Enabled reports whether any class is limited.
func (l RateLimit) Enabled() bool {
	for _, c := range rateClasses {
		if !l.Rate(c).zero() {
			return true
		}
	}
	return false
}

func (l RateLimit) burst() int { return max(l.Burst, 1) }

// String describes the limit for a banner:
// "2/s per key and class, burst 2, images 10/m"; "none" when zero.
func (l RateLimit) String() string {
	if !l.Enabled() {
		return "none"
	}
	def := "unlimited"
	if !l.Default.zero() {
		def = l.Default.String()
	}
	parts := []string{def + " per key and class", fmt.Sprintf("burst %d", l.burst())}
	for _, c := range rateClasses {
		if r := *l.class(c); !r.zero() && r != l.Default {
			parts = append(parts, c+" "+r.String())
		}
	}
	return strings.Join(parts, ", ")
}

// rateRe matches RATE: a positive decimal N, per second or per minute.
var rateRe = regexp.MustCompile(`^([0-9]+(?:\.[0-9]*)?|\.[0-9]+)/([sm])$`)

// ParseRateLimit parses "RATE[,burst=N][,CLASS=RATE...]". RATE is N/s or N/m
// (N a positive number, decimals allowed: 0.5/s); the first RATE is the
// default of every class, CLASS=RATE overrides one of models, chat,
// messages, images, responses. burst=N (an integer from 1 to 10000, default
// 1) is the bucket capacity of every class. Example: "2/s,burst=2,images=10/m".
// An empty spec is no limit.
func ParseRateLimit(spec string) (RateLimit, error) {
	var l RateLimit
	if strings.TrimSpace(spec) == "" {
		return l, nil
	}
	first, seen := true, map[string]bool{}
	for item := range strings.SplitSeq(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if first {
			first = false
			r, err := parseDefaultRate(item)
			if err != nil {
				return RateLimit{}, err
			}
			l.Default = r
			continue
		}
		if err := l.applyItem(item, seen); err != nil {
			return RateLimit{}, err
		}
	}
	return l, nil
}

// parseDefaultRate parses the first item of a rate limit spec: a RATE, the
// default of every class.
func parseDefaultRate(item string) (Rate, error) {
	if strings.Contains(item, "=") {
		return Rate{}, fmt.Errorf("rate limit %q: want a RATE (N/s or N/m) first, the default of every class", item)
	}
	r, err := parseRate(item)
	if err != nil {
		return Rate{}, fmt.Errorf("rate limit %q: %w", item, err)
	}
	return r, nil
}

// applyItem applies an item of a rate limit spec after the first: burst=N or
// CLASS=RATE. seen holds the names items before it gave; each may be given
// once.
func (l *RateLimit) applyItem(item string, seen map[string]bool) error {
	name, val, hasName := strings.Cut(item, "=")
	name, val = strings.TrimSpace(name), strings.TrimSpace(val)
	if !hasName {
		return fmt.Errorf("rate limit %q: after the first RATE, want burst=N or CLASS=RATE", item)
	}
	if seen[name] {
		return fmt.Errorf("rate limit %q: %s is given twice", item, name)
	}
	seen[name] = true
	if name == "burst" {
		n, err := strconv.Atoi(val)
		if err != nil || n < 1 || n > maxBurst {
			return fmt.Errorf("rate limit %q: burst wants an integer from 1 to %d", item, maxBurst)
		}
		l.Burst = n
		return nil
	}
	dst := l.class(name)
	if dst == nil {
		return fmt.Errorf("rate limit %q: unknown class %q (want burst or one of %s)", item, name, strings.Join(rateClasses, ", "))
	}
	r, err := parseRate(val)
	if err != nil {
		return fmt.Errorf("rate limit %q: %w", item, err)
	}
	*dst = r
	return nil
}

// parseRate parses N/s or N/m; its errors do not name s.
func parseRate(s string) (Rate, error) {
	m := rateRe.FindStringSubmatch(strings.ReplaceAll(s, " ", ""))
	if m == nil {
		return Rate{}, errors.New("want N/s or N/m")
	}
	n, err := strconv.ParseFloat(m[1], 64)
	if err != nil || n <= 0 {
		return Rate{}, errors.New("want N/s or N/m with N a positive number")
	}
	r := Rate{N: n, Per: time.Second}
	if m[2] == "m" {
		r.Per = time.Minute
	}
	if err := r.check(); err != nil {
		return Rate{}, err
	}
	return r, nil
}

// check refuses a rate outside the bounds (at most 1000000 requests a
// second, at least one a day).
func (r Rate) check() error {
	switch iv := float64(r.Per) / r.N; {
	case r.Per != time.Second && r.Per != time.Minute:
		return fmt.Errorf("per %v: want per second or per minute", r.Per)
	case !(iv >= float64(minRateInterval)): // also NaN
		return errors.New("more than 1000000 requests a second")
	case iv > float64(maxRateInterval):
		return errors.New("less than one request a day")
	}
	return nil
}

// classOf is the rate limit class of an endpoint.
func classOf(ep endpoint) string {
	switch ep {
	case epModels:
		return ClassModels
	case epChat:
		return ClassChat
	case epMessages:
		return ClassMessages
	case epGenerations, epEdits:
		return ClassImages
	default:
		return ClassResponses
	}
}

// Rate limit headers, in both vendors' names (each is set on every answer
// of a limited class).
const (
	HeaderLimitRequests     = "x-ratelimit-limit-requests"     // the burst
	HeaderRemainingRequests = "x-ratelimit-remaining-requests" // whole tokens left after this request
	HeaderResetRequests     = "x-ratelimit-reset-requests"     // time until the bucket is full: a Go duration in ms, "1s", "500ms"
	HeaderAnthropicLimit    = "anthropic-ratelimit-requests-limit"
	HeaderAnthropicRemain   = "anthropic-ratelimit-requests-remaining"
	HeaderAnthropicReset    = "anthropic-ratelimit-requests-reset" // RFC 3339 UTC time the bucket is full, ms precision
)

// limiter keeps the token buckets of a RateLimit. It is safe for concurrent
// use.
type limiter struct {
	limit RateLimit
	now   func() time.Time // the clock; time.Now unless a test sets another
	mu    sync.Mutex
	// full holds, per key and class, the time the bucket is full again (a
	// generic cell rate algorithm: the tokens at t are burst minus
	// (full-t)/interval). A bucket not in the map is full.
	full map[bucketKey]time.Time
}

type bucketKey struct{ key, class string }

func newLimiter(l RateLimit) *limiter {
	return &limiter{limit: l, now: time.Now, full: map[bucketKey]time.Time{}}
}

// admission is the state of a bucket after a request: admitted (a token
// taken) or refused (none taken).
type admission struct {
	ok        bool
	class     string
	rate      Rate
	limit     int           // the burst
	remaining int           // whole tokens left
	reset     time.Duration // until the bucket is full
	retry     time.Duration // refused: until one token is available
	at        time.Time     // the clock when the request came
}

// take takes a token of key's bucket of class. It reports false for a class
// without a limit.
func (l *limiter) take(key, class string) (admission, bool) {
	rate := l.limit.Rate(class)
	if rate.zero() {
		return admission{}, false
	}
	iv, burst := rate.interval(), l.limit.burst()
	capacity := time.Duration(burst) * iv

	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	k := bucketKey{key, class}
	full := l.full[k]
	if full.Before(now) {
		full = now
	}
	a := admission{class: class, rate: rate, limit: burst, at: now}
	// backlog is the missing tokens' worth of refill time; one token is
	// available while it is at most (burst-1) intervals.
	backlog := full.Sub(now)
	if over := backlog + iv - capacity; over > 0 {
		a.retry = over
	} else {
		a.ok = true
		full = full.Add(iv)
		backlog += iv
		l.full[k] = full
	}
	a.reset = backlog
	a.remaining = burst - int((backlog+iv-1)/iv) // burst - ceil(backlog/iv)
	return a, true
}

// retryAfter is the Retry-After value: whole seconds until a token is
// available, rounded up, at least 1.
func (a admission) retryAfter() int64 {
	s := int64((a.retry + time.Second - 1) / time.Second)
	return max(s, 1)
}

// setHeaders sets both vendors' rate limit headers.
func (a admission) setHeaders(h http.Header) {
	limit, remaining := strconv.Itoa(a.limit), strconv.Itoa(a.remaining)
	h.Set(HeaderLimitRequests, limit)
	h.Set(HeaderRemainingRequests, remaining)
	h.Set(HeaderResetRequests, a.reset.Round(time.Millisecond).String())
	h.Set(HeaderAnthropicLimit, limit)
	h.Set(HeaderAnthropicRemain, remaining)
	h.Set(HeaderAnthropicReset, a.at.Add(a.reset).UTC().Truncate(time.Millisecond).Format(time.RFC3339Nano))
}

// rateLimited takes a token for the call's key and the class of ep and sets
// the rate limit headers. When the bucket is empty it answers 429 with
// Retry-After and returns false.
func (c *call) rateLimited(ep endpoint) bool {
	if c.g.limiter == nil {
		return true
	}
	a, limited := c.g.limiter.take(c.kind, classOf(ep))
	if !limited {
		return true
	}
	h := c.w.Header()
	a.setHeaders(h)
	if a.ok {
		return true
	}
	secs := a.retryAfter()
	h.Set("Retry-After", strconv.FormatInt(secs, 10))
	c.fail(http.StatusTooManyRequests, fmt.Sprintf("rate limit exceeded: %s, burst %d, for the %s class of this key; retry after %ds",
		a.rate, a.limit, a.class, secs))
	return false
}
