package record

import (
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
	ex := &Exchange{Version: Version, Call: &l.call}
	var err error
	for _, c := range l.captured {
		r, e := l.tap.round(c, l.call.Key)
		ex.Rounds = append(ex.Rounds, r)
		err = errors.Join(err, e)
	}
	where := ""
	if l.tap.Store != nil && err == nil {
		if where, err = l.tap.Store.writeCall(ex); err != nil {
			return transcript(ex.Rounds, ""), err
		}
	}
	return transcript(ex.Rounds, where), err
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
	// Cap bounds what is recorded of an exchange: the bytes of its request
	// and response bodies together (0: no cap). Past it the exchange is
	// still passed on whole, but its recording stops there and says so
	// (Round.OverCap): a relay's memory and its judge's stay bounded
	// whatever the traffic.
	Cap int64

	pending sync.WaitGroup // relayed rounds being written
	sinkOf  sync.Once
	sink    *blobSink // where a recording's blobs go
}

// DefaultCap is a relay's cap per exchange: far above the largest answer a
// verified row gives. Measured on the reference gateway at 1536x1024: an
// image result of n 2 is at most 0.69 MB (JPEG; PNG 0.54 MB), an image
// stream with partial_images 3 at most 0.62 MB. A real gateway's, at worst
// four images of 1536x1024 as uncompressed RGBA PNG (6.3 MB each, 8.4 MB
// in base64: a stream with partial_images 3), is 34 MB.
const DefaultCap = 64 << 20

// blobs is where the blobs of a round go: the recording's blobs/, or,
// with no Store, memory of the round's own.
func (t *Tap) blobs() *blobSink {
	if t.Store == nil {
		return newSink(nil)
	}
	t.sinkOf.Do(func() { t.sink = newSink(t.Store) })
	return t.sink
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
	sink := t.blobs()
	body, err := t.spool(req, sink)
	if err != nil {
		return nil, err
	}
	out := req.Clone(req.Context())
	body.attach(out)
	c := &capture{req: out, body: body, sink: sink, sent: time.Now(), limit: t.Cap}
	c.over = t.Cap > 0 && body.size() > t.Cap
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
	r, err := t.round(c, "")
	if err != nil {
		return
	}
	file, err := t.Store.appendRelay(r)
	if err == nil && t.Relayed != nil {
		t.Relayed(r, file)
	}
}

// spool reads a request's body whole before it is sent, so that it can be
// recorded and sent: into memory when small, else into a file.
func (t *Tap) spool(req *http.Request, sink *blobSink) (*spool, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	defer req.Body.Close()
	return newSpool(req.Body, sink)
}

// drain reads a request's body whole (a replay matches it).
func drain(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	defer req.Body.Close()
	return io.ReadAll(req.Body)
}

// capture is one round in flight: the request, and the response as it
// arrives, each read with its time and converted for the file as it passes.
type capture struct {
	req   *http.Request
	body  *spool // the request's body
	sink  *blobSink
	sent  time.Time
	limit int64 // the tap's cap

	mu       sync.Mutex
	status   int
	header   http.Header
	received time.Time
	events   *eventSplitter // an event stream's, as it arrives
	text     *extractor     // any other body's
	size     int64          // the response body's bytes received
	kept     int64          // of which recorded
	over     bool           // the bodies passed the cap: recording stopped
	ended    time.Time
	done     bool
	unread   bool
	err      string
	cut      string
	onDone   func()
}

func (c *capture) respond(resp *http.Response) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.status, c.header, c.received = resp.StatusCode, resp.Header.Clone(), time.Now()
	if isEventStream(c.header) {
		c.events = newEventSplitter(c.sink)
	} else {
		c.text = newExtractor(c.sink)
	}
}

// write takes the next bytes of the response body, up to the cap.
func (c *capture) write(p []byte, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.size += int64(len(p))
	if c.over || c.done {
		return
	}
	if room := c.limit - c.body.size() - c.kept; c.limit > 0 && int64(len(p)) > room {
		p, c.over = p[:room], true
	}
	c.kept += int64(len(p))
	if c.events != nil {
		c.events.write(p, at)
	} else {
		c.text.Write(p)
	}
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

// round converts a capture for the file: redacted, blobs out. Its
// request's spool is gone after.
func (t *Tap) round(c *capture, prefer string) (Round, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	defer c.body.close()
	red := redactor(append(append([]string(nil), t.Secrets...), credentials(c.req.Header)...))
	kind := keyKind(c.req.Header, t.Keys, prefer)
	body, model, digest, err := requestBody(c.req.Header.Get("Content-Type"), c.body, c.limit, red, c.sink)
	r := Round{
		Sent: c.sent.UTC(),
		Request: Request{
			Method: c.req.Method, Path: red.text(t.Bases.relPath(c.req.URL, kind)), Key: kind, Auth: authOf(c.req.Header), Model: red.text(model),
			Header: keepHeaders(c.req.Header, droppedRequestHeaders, red),
			Body:   body,
			Digest: digest,
		},
		Error: red.text(c.err),
		Cut:   red.text(c.cut),
	}
	if c.over {
		r.OverCap = c.limit
	}
	if c.status == 0 {
		return r, err
	}
	resp := &Response{
		Received: c.received.UTC(), Status: c.status,
		Header: keepHeaders(c.header, droppedResponseHeaders, red),
		Unread: c.unread,
	}
	if !c.ended.IsZero() {
		resp.EndedMS = c.ended.Sub(c.sent).Milliseconds()
	}
	var e error
	if c.events != nil {
		var evs []rawEvent
		evs, e = c.events.finish(c.over)
		resp.Events = []Event{}
		for _, ev := range evs {
			resp.Events = append(resp.Events, Event{OffsetMS: ev.at.Sub(c.sent).Milliseconds(), Text: red.text(string(ev.text))})
		}
	} else if c.size > 0 {
		var skel []byte
		if skel, e = c.text.finish(c.over); e == nil {
			resp.Body, e = textBody(skel, c.size, red, c.sink)
		}
	}
	r.Response = resp
	return r, errors.Join(err, e)
}

func isEventStream(h http.Header) bool {
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return mt == "text/event-stream"
}
