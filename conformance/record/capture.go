package record

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"sync"
	"time"

	"github.com/gwconform/gwconform/conformance/results"
)

type logKey struct{}

// Log collects the rounds of one call while the engine runs it: the Tap
// captures them, or Replay answers them from a recording. The engine
// begins a Log before a call and ends it after, when every body is closed.
type Log struct {
	call Call

	mu       sync.Mutex
	tap      *Tap       // the tap that captured the rounds
	captured []*capture // in the order they were sent
	// A replay's answers: the exchange file, the rounds it served, and the
	// recorded times of each response it returned.
	source string
	served []Round
	used   map[int]bool
	times  map[*http.Response]Times
}

// Begin starts the log of one call; the Tap and Replay find it in ctx.
func Begin(ctx context.Context, c Call) (context.Context, *Log) {
	l := &Log{call: c}
	return context.WithValue(ctx, logKey{}, l), l
}

func logFrom(ctx context.Context) *Log {
	l, _ := ctx.Value(logKey{}).(*Log)
	return l
}

// Times are an exchange's own send and receive times.
type Times struct{ Sent, Received time.Time }

// TimesOf returns the recorded times of a response a Replay answered
// within the call of ctx. The checks judge "created" against the
// exchange's times: under replay those are the recorded ones, so a
// re-check of recorded traffic agrees with the live run.
func TimesOf(ctx context.Context, resp *http.Response) (Times, bool) {
	l := logFrom(ctx)
	if l == nil {
		return Times{}, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	t, ok := l.times[resp]
	return t, ok
}

// End finishes the log: it writes the call's exchange when the tap records
// into a Store, and returns the call's transcript (nil when nothing was
// captured or replayed). Call it when every body of the call is closed.
func (l *Log) End() (*results.Transcript, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.served != nil {
		return transcript(l.served, l.source), nil
	}
	if l.tap == nil || len(l.captured) == 0 {
		return nil, nil
	}
	blobs := map[string][]byte{}
	ex := &Exchange{Version: Version, Call: &l.call}
	for _, c := range l.captured {
		ex.Rounds = append(ex.Rounds, l.tap.round(c, l.call.Key, blobs))
	}
	where := ""
	if l.tap.Store != nil {
		var err error
		if where, err = l.tap.Store.writeCall(ex, blobs); err != nil {
			return transcript(ex.Rounds, ""), err
		}
	}
	return transcript(ex.Rounds, where), nil
}

// Replayed says a Replay answered the call from a recording.
func (l *Log) Replayed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.served != nil
}

// Tap is an http.RoundTripper that captures the exchanges of the calls
// made through it (those whose context carries a Log) and passes them on
// to Next unchanged: the engine still reads each body as it arrives, so
// timings, stall limits and stream checks see the live traffic. With a
// Store it writes each call's exchange; with Relay it also records every
// other request, one file per distinct request (serve --upstream).
type Tap struct {
	// Next sends the requests (nil: http.DefaultTransport).
	Next http.RoundTripper
	// Bases are the paths of the base URLs, left out of recorded paths.
	Bases BasePaths
	// Keys maps each key kind to its key, to name the kind of a request's
	// credential; the credential itself is never recorded.
	Keys map[string]string
	// Secrets are exact values to redact from everything recorded (keys,
	// secret header values); a request's own credentials are added.
	Secrets []string
	// Store receives the exchanges; nil keeps them for transcripts only.
	Store *Store
	// Relay records requests made outside any call too.
	Relay bool
	// Relayed, when set, is handed each relayed round once it is written
	// to Store, with the file that holds it. It runs beside the relay:
	// it may take its time, but must be safe for concurrent use.
	Relayed func(r Round, file string)

	pending sync.WaitGroup // relayed rounds being written
}

// Wait waits until every relayed round that ended is written (and handed
// to Relayed): a relay calls it once it has stopped serving.
func (t *Tap) Wait() { t.pending.Wait() }

func (t *Tap) next() http.RoundTripper {
	if t.Next == nil {
		return http.DefaultTransport
	}
	return t.Next
}

// RoundTrip implements http.RoundTripper.
func (t *Tap) RoundTrip(req *http.Request) (*http.Response, error) {
	log := logFrom(req.Context())
	if log == nil && !t.Relay {
		return t.next().RoundTrip(req) // the preflight, a coverage listing: no call's
	}
	body, err := drain(req)
	if err != nil {
		return nil, err
	}
	out := req.Clone(req.Context())
	setBody(out, body)
	c := &capture{req: out, body: body, sent: time.Now()}
	if log != nil {
		log.mu.Lock()
		log.tap = t
		log.captured = append(log.captured, c)
		log.mu.Unlock()
	} else {
		// Written beside the client's exchange, not in its path: the
		// last bytes of a body may come with its end, and the client
		// must not wait on the recording for them (Wait waits for it).
		c.onDone = func() {
			t.pending.Add(1)
			go func() {
				defer t.pending.Done()
				t.writeRelay(c)
			}()
		}
	}
	resp, err := t.next().RoundTrip(out)
	if err != nil {
		c.end(err)
		return nil, err
	}
	c.respond(resp)
	resp.Body = &captureBody{rc: resp.Body, c: c}
	return resp, nil
}

// writeRelay records a relayed round. A recording that cannot be written
// must not break the client's exchange, which has already been answered:
// the error is dropped here, and the relay's operator sees a missing file.
func (t *Tap) writeRelay(c *capture) {
	blobs := map[string][]byte{}
	r := t.round(c, "", blobs)
	file, err := t.Store.appendRelay(r, blobs)
	if err == nil && t.Relayed != nil {
		t.Relayed(r, file)
	}
}

// drain reads a request's body whole, so that it can be recorded and sent.
func drain(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	defer req.Body.Close()
	return io.ReadAll(req.Body)
}

func setBody(req *http.Request, body []byte) {
	if body == nil {
		req.Body = http.NoBody
		return
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
}

// capture is one round in flight: the request, and the response as it
// arrives, each read with its time.
type capture struct {
	req  *http.Request
	body []byte
	sent time.Time

	mu       sync.Mutex
	status   int
	header   http.Header
	received time.Time
	buf      bytes.Buffer
	arrivals []arrival
	ended    time.Time
	done     bool
	unread   bool
	err      string
	cut      string
	onDone   func()
}

// arrival marks that the body's first end bytes had arrived at at.
type arrival struct {
	end int
	at  time.Time
}

func (c *capture) respond(resp *http.Response) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.status, c.header, c.received = resp.StatusCode, resp.Header.Clone(), time.Now()
}

func (c *capture) write(p []byte, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.buf.Write(p)
	c.arrivals = append(c.arrivals, arrival{end: c.buf.Len(), at: at})
}

// end closes the round: io.EOF is a whole body, any other error is kept,
// and named as the client's own cut when the request's context was done.
func (c *capture) end(err error) {
	c.mu.Lock()
	if c.done {
		c.mu.Unlock()
		return
	}
	c.done, c.ended = true, time.Now()
	if err != nil && !errors.Is(err, io.EOF) {
		c.err = err.Error()
		if ctx := c.req.Context(); ctx.Err() != nil {
			c.cut = context.Cause(ctx).Error()
		}
	}
	done := c.onDone
	c.mu.Unlock()
	if done != nil {
		done()
	}
}

// closeEarly ends a body the client closed before reading it to its end.
func (c *capture) closeEarly() {
	c.mu.Lock()
	if !c.done {
		c.unread = true
	}
	c.mu.Unlock()
	c.end(nil)
}

// captureBody tees a response body into its capture as it is read.
type captureBody struct {
	rc io.ReadCloser
	c  *capture
}

func (b *captureBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 {
		b.c.write(p[:n], time.Now())
	}
	if err != nil {
		b.c.end(err)
	}
	return n, err
}

func (b *captureBody) Close() error {
	b.c.closeEarly()
	return b.rc.Close()
}

// round converts a capture for the file: redacted, blobs out.
func (t *Tap) round(c *capture, prefer string, blobs map[string][]byte) Round {
	c.mu.Lock()
	defer c.mu.Unlock()
	red := redactor(append(append([]string(nil), t.Secrets...), credentials(c.req.Header)...))
	ct := c.req.Header.Get("Content-Type")
	k := KeyOf(c.req, c.body, t.Keys, prefer, t.Bases)
	r := Round{
		Sent: c.sent.UTC(),
		Request: Request{
			Method: k.Method, Path: red.text(k.Path), Key: k.Key, Auth: authOf(c.req.Header), Model: red.text(k.Model),
			Header: keepHeaders(c.req.Header, droppedRequestHeaders, red),
			Body:   makeBody(ct, c.body, red, blobs, true),
			Digest: k.Digest,
		},
		Error: red.text(c.err),
		Cut:   red.text(c.cut),
	}
	if c.status == 0 {
		return r
	}
	resp := &Response{
		Received: c.received.UTC(), Status: c.status,
		Header: keepHeaders(c.header, droppedResponseHeaders, red),
		Unread: c.unread,
	}
	if !c.ended.IsZero() {
		resp.EndedMS = c.ended.Sub(c.sent).Milliseconds()
	}
	if isEventStream(c.header) {
		for _, ev := range splitEvents(c.buf.Bytes(), c.arrivals) {
			resp.Events = append(resp.Events, Event{OffsetMS: ev.at.Sub(c.sent).Milliseconds(), Text: red.text(string(extractBlobs(ev.text, blobs)))})
		}
		if resp.Events == nil {
			resp.Events = []Event{}
		}
	} else {
		resp.Body = makeBody(c.header.Get("Content-Type"), c.buf.Bytes(), red, blobs, false)
	}
	r.Response = resp
	return r
}

func isEventStream(h http.Header) bool {
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return mt == "text/event-stream"
}

// rawEvent is one event's bytes and when its last byte arrived.
type rawEvent struct {
	text []byte
	at   time.Time
}

// splitEvents cuts a stream into events at blank lines (a line ending of
// CRLF, LF or CR, then another), each with the time its last byte arrived.
// A tail with no blank line (a cut stream) is an event of its own.
func splitEvents(buf []byte, arrivals []arrival) []rawEvent {
	at := func(end int) time.Time {
		for _, a := range arrivals {
			if a.end >= end {
				return a.at
			}
		}
		return time.Time{}
	}
	var out []rawEvent
	start, lineStart := 0, 0
	for i := 0; i < len(buf); {
		if buf[i] != '\n' && buf[i] != '\r' {
			i++
			continue
		}
		next := i + 1
		if buf[i] == '\r' && next < len(buf) && buf[next] == '\n' {
			next++
		}
		if i == lineStart { // an empty line ends the event
			out = append(out, rawEvent{text: buf[start:next], at: at(next)})
			start = next
		}
		i, lineStart = next, next
	}
	if start < len(buf) {
		out = append(out, rawEvent{text: buf[start:], at: at(len(buf))})
	}
	return out
}
