package check

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
	"github.com/gwconform/gwconform/schemas"
)

// Exchange is what the check stage reads of one call: the case and the
// request judged, and the answer the execute stage received. Nothing here
// sends a request: what a check compares with beyond the answer (another
// key's model list) was fetched by execute and is handed in.
type Exchange struct {
	Case *catalog.Case
	// Request is the request the answer is judged against, as written (the
	// accepted variant's, for a case with variants): rules of a kind read
	// max_tokens, n, size and output_format from it.
	Request *catalog.Request
	// Model is the model the request names (the call's when its body names
	// none): "model used" is compared with it.
	Model string
	// Rows are the spec rows the case cites: a generic check's reason names
	// those it stands for.
	Rows    []*catalog.SpecRow
	Schemas *schemas.Set
	// Response is the answer; its body is read here, within Limits.
	Response *http.Response
	// Sent and Received are the exchange's own times (the request; the
	// first response byte): judging from these rather than the clock keeps
	// a later re-check of the same traffic (a replay) in agreement.
	Sent, Received time.Time
	// Started is when this run sent the request, which a stream's first
	// event is timed from (Sent is a replay's recorded time).
	Started time.Time
	// Others are the model lists of other key kinds a differs_from check
	// compares with.
	Others map[catalog.KeyKind][]string
	// Named are spec ids a model list must name, each by any id that
	// names it (its spelling or a vendor's words): what the judge of
	// observed traffic owes a key's list, knowing no gateway ids. A case's
	// listed: true looks for the id its requests send.
	Named []string
	// Cut says the client ended the exchange before its end (a timeout, a
	// stream it stopped reading): what arrived is judged, not how the
	// answer would have ended — no end-of-stream rule, no whole body.
	Cut    bool
	Limits Limits
}

// Limits bound what a check reads and keeps.
type Limits struct {
	// MaxBodyBytes caps a response body, a whole stream included.
	MaxBodyBytes int64
	// MaxEventBytes caps one stream event (0: the SSE reader's default).
	MaxEventBytes int
	// Thumbnails keeps a small PNG of every decoded image for the reports.
	Thumbnails bool
}

// Answer runs every expectation of the case on the answer and returns the
// broken ones, merged (nil: all held). What it observed on the way — the
// stream's event types and first event, the decoded images — goes into res.
func Answer(x *Exchange, res *results.Result) []vocab.Reason {
	c := &checker{model: x.Model, spec: res.Model, sent: x.Sent, received: x.Received, rows: x.Rows,
		request: x.Request, strict: x.Case.Tier == vocab.TierStrict, explore: x.Case.Tier == vocab.TierExplore, cut: x.Cut}
	c.answer(x, res)
	return mergeReasons(c.reasons)
}

// answer checks the status first: a mismatched or error status ends the
// checks, since the body only explains it; then a stream or a JSON body.
func (c *checker) answer(x *Exchange, res *results.Result) {
	cs, exp, resp := x.Case, x.Case.Expect, x.Response
	success := resp.StatusCode >= 200 && resp.StatusCode < 300
	if !cs.Accepts(resp.StatusCode) || !success {
		// Error body shapes are not shown by the spec (section 7), so no more checks.
		body, _ := ReadBody(resp.Body, 64<<10)
		if success && refusedInBody(cs, body) {
			return
		}
		c.checkStatus(cs, resp.StatusCode, body)
		return
	}
	if exp.SSE != nil {
		// A stream is judged whole: a wrong media type is one reason, and
		// the events still tell the rest (a relay that drops the header
		// may also send cumulative deltas). A JSON document in place of
		// the stream (stream: true ignored) holds no data: line, so a
		// client reads a stream without events: the rules say what it
		// then lacks (its end, its text), not that it was cut.
		c.checkContentType(resp.Header, "text/event-stream")
		body := bufio.NewReader(&cappedReader{r: resp.Body, left: x.Limits.MaxBodyBytes, limit: x.Limits.MaxBodyBytes})
		if startsJSONDocument(body) {
			c.checkStream(strings.NewReader(""), exp.SSE, x.Schemas, x.Limits, x.Started, res)
			return
		}
		c.checkStream(body, exp.SSE, x.Schemas, x.Limits, x.Started, res)
		return
	}
	if x.Cut {
		return // a JSON body cut short is no document to judge
	}
	body, err := ReadBody(resp.Body, x.Limits.MaxBodyBytes)
	if err != nil {
		c.fail("transport", "body", "the whole body", err.Error(), "reading the body failed")
		return
	}
	c.checkJSONAnswer(x, body, res)
}

// startsJSONDocument reports whether a body begins, after white space, as
// a JSON object or array does, without consuming it.
func startsJSONDocument(body *bufio.Reader) bool {
	for i := 1; ; i++ {
		b, err := body.Peek(i)
		if err != nil || i > 512 {
			return false
		}
		switch b[i-1] {
		case ' ', '\t', '\r', '\n':
			continue
		case '{', '[':
			return true
		}
		return false
	}
}

// checkJSONAnswer checks a JSON answer: its kind's schema and rules, the
// case's own schema and matchers, the lists it must differ from, and its
// images.
func (c *checker) checkJSONAnswer(x *Exchange, body []byte, res *results.Result) {
	exp := x.Case.Expect
	kind := kindOfPath[x.Case.Request.Path]
	if kind == "" && len(exp.JSON) == 0 && exp.Schema == "" && exp.Images == nil {
		return // status-only case on an endpoint whose answer the spec does not show
	}
	// A JSON body is read as JSON whatever its Content-Type says (4 states
	// the media type of requests only); the official clients decode by the
	// media type, so a strict case reports another.
	if c.strict {
		c.checkContentType(x.Response.Header, "application/json")
	}
	if !c.validJSON(body, "body") {
		return
	}
	images := kind == kindImageResult || exp.Schema == kindImageResult
	c.checkSuccessBody(body, images)
	if kind != "" {
		c.checkSchema(x.Schemas, kind, body, "")
	}
	if exp.Schema != "" && exp.Schema != kind {
		c.checkSchema(x.Schemas, exp.Schema, body, "")
	}
	c.checkKind(kind, body)
	c.checkMatchers(body, exp.JSON)
	if len(exp.DiffersFrom) > 0 {
		c.checkListsDiffer(body, x.Others)
	}
	if exp.Listed {
		c.checkListed(body, x.Case.Key, res.Model)
	}
	for _, spec := range x.Named {
		c.checkNamed(body, x.Case.Key, spec)
	}
	if images || exp.Images != nil {
		res.Images = c.checkImageResult(body, ExpectedImages(exp.Images, c.request), x.Limits.Thumbnails)
	}
}

// Status turns the reasons Answer returned into a status. The explore tier maps a
// refusal (4xx) to unsupported rather than fail: the gateway declined what
// the spec does not promise, and explore discovers, never judges. A 5xx is
// no refusal but a broken answer: fail, reported in the explore row and
// never deciding the exit code (explore does not count).
func Status(cs *catalog.Case, code int, reasons []vocab.Reason) vocab.Status {
	switch {
	case len(reasons) == 0:
		return vocab.StatusPass
	case code == http.StatusTooManyRequests:
		return vocab.StatusThrottled
	case cs.Tier == vocab.TierExplore && code >= 400 && code < 500 && cs.Expect.Status < 400:
		return vocab.StatusUnsupported
	}
	return vocab.StatusFail
}

// cappedReader fails once more than limit bytes were read: a stream is read
// event by event, so ReadBody's cap cannot apply to it.
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

// ReadBody reads at most limit bytes; more is an error naming the cap.
func ReadBody(r io.Reader, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return b, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("response body exceeds the %d-byte cap", limit)
	}
	return b, nil
}
