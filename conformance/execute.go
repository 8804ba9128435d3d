package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"time"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/record"
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
	// MaxRetries is how often a call is retried after 429, 502, 503, 504 or a
	// connection error before any response byte (default 2; negative: none).
	MaxRetries int
	// RetryWait is the wait before a retry when the gateway gives no
	// Retry-After (default 1 s); MaxRetryWait caps any wait (default 60 s).
	RetryWait, MaxRetryWait time.Duration
	// MaxBodyBytes caps a response body, a whole stream included (default
	// 256 MiB: two large PNGs in base64 are tens of MB; anything near the cap
	// is hostile, and an endless stream of valid events must not grow the
	// text a stream check accumulates without bound).
	MaxBodyBytes int64
	// MaxEventBytes caps one stream event (default: the SSE reader's).
	MaxEventBytes int
	// Thumbnails keeps a small PNG of every decoded image for the reports.
	Thumbnails bool
}

func (o Options) withDefaults() Options {
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
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 256 << 20
	}
	return o
}

// exchange is one answered request: the response with its body still open,
// and the timings so far.
type exchange struct {
	resp     *http.Response
	started  time.Time
	ttfb     time.Duration
	attempts int
	watch    *watchdog // of the attempt that answered
}

// stalled is the phase limit that cut the answered attempt, if any.
func (ex *exchange) stalled() *StallError {
	if ex.watch == nil {
		return nil
	}
	return ex.watch.stalled()
}

// retryable says whether a status is worth another attempt.
func retryable(status int) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// errNoResponse marks a transport failure before any response byte: the only
// kind of error that is safe to retry (nothing was processed that we saw).
type errNoResponse struct{ err error }

func (e errNoResponse) Error() string { return e.err.Error() }
func (e errNoResponse) Unwrap() error { return e.err }

// send makes the request, retrying as Options allow. The caller closes
// ex.resp.Body. On error, attempts tells how many were made.
func send(ctx context.Context, client *http.Client, o Options, t Target, cs *catalog.Case, r *catalog.Rendered) (*exchange, error) {
	ex := &exchange{}
	for {
		ex.attempts++
		resp, ttfb, started, watch, err := sendOnce(ctx, client, o, t, cs, r)
		ex.started, ex.ttfb, ex.watch = started, ttfb, watch
		var wait time.Duration
		switch {
		case err != nil:
			var nr errNoResponse
			var skip *record.SkipError // a replay's "no recording" stays so
			if !errors.As(err, &nr) || errors.As(err, &skip) || ex.attempts > o.MaxRetries || ctx.Err() != nil {
				return ex, err
			}
			wait = o.RetryWait
		case retryable(resp.StatusCode) && ex.attempts <= o.MaxRetries:
			wait = min(retryAfter(resp.Header.Get("Retry-After"), o.RetryWait, time.Now()), o.MaxRetryWait)
			if dl, ok := ctx.Deadline(); ok && time.Now().Add(wait).After(dl) {
				// The wait asked for outlasts the timeout: this answer is
				// the verdict (throttled), not a timeout of our making.
				ex.resp = resp
				return ex, nil
			}
			// Drain a little so the connection can be reused, then retry.
			io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
		default:
			ex.resp = resp
			return ex, nil
		}
		if wait > o.MaxRetryWait {
			wait = o.MaxRetryWait
		}
		select {
		case <-ctx.Done():
			return ex, ctx.Err()
		case <-time.After(wait):
		}
	}
}

// sendOnce makes one attempt under a watchdog of its phases; the response
// body it returns keeps the watch until it is closed.
func sendOnce(ctx context.Context, client *http.Client, o Options, t Target, cs *catalog.Case, r *catalog.Rendered) (*http.Response, time.Duration, time.Time, *watchdog, error) {
	ctx, watch := newWatchdog(ctx, o)
	req, err := http.NewRequestWithContext(ctx, r.Method, t.BaseURL+r.Path, bytes.NewReader(r.Body))
	if err != nil {
		watch.stop()
		return nil, 0, time.Now(), nil, err
	}
	t.setHeaders(req.Header, cs.Key)
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
		GotConn: func(httptrace.GotConnInfo) { watch.enter(phaseHeader) },
		GotFirstResponseByte: func() {
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

// retryAfter reads a Retry-After header (seconds or an HTTP date).
func retryAfter(h string, def time.Duration, now time.Time) time.Duration {
	if h == "" {
		return def
	}
	if s, err := strconv.Atoi(h); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if at, err := http.ParseTime(h); err == nil {
		if d := at.Sub(now); d > 0 {
			return d
		}
		return 0
	}
	return def
}

// cappedReader fails once more than limit bytes were read: a stream is read
// event by event, so readBody's cap cannot apply to it.
type cappedReader struct {
	r           io.Reader
	left, limit int64
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		// Exactly limit bytes then the end is within the cap.
		var one [1]byte
		if n, err := c.r.Read(one[:]); n == 0 {
			return 0, err
		}
		return 0, fmt.Errorf("response stream exceeds the %d-byte cap", c.limit)
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// readBody reads at most limit bytes; more is an error naming the cap.
func readBody(r io.Reader, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return b, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("response body exceeds the %d-byte cap", limit)
	}
	return b, nil
}
