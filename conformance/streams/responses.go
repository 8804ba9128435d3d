package streams

import (
	"github.com/gwconform/gwconform/conformance/sse"
)

// Responses checks a Responses-interface stream. The spec (4.6) shows the
// interface exists but not its shape, so this grammar follows the public
// Responses API and serves explore-tier cases only: response.created first,
// text in response.output_text.delta (field delta), response.completed last;
// response.failed, response.incomplete or an error event end it in failure.
// Event types the grammar does not know are allowed: that API adds them.
type Responses struct {
	text      textBuf
	events    int
	started   bool
	completed int // event number of response.completed
	once      once
}

// Rule ids of the Responses grammar (explore tier: the spec states none).
const (
	RuleRespNotJSON      = "responses.not-json"
	RuleRespTypeMissing  = "responses.type-missing"
	RuleRespNameMismatch = "responses.event-name-mismatch" // strict, as in every stream
	RuleRespCreatedFirst = "responses.created-first"
	RuleRespFailed       = "responses.failed"
	RuleRespAfterDone    = "responses.completed-last"
	RuleRespNoCompleted  = "responses.completed-missing"
)

// anyName: a Responses event without a payload type is no event of the
// interface, whatever its event: line (explore: the Responses interface's
// payloads are not shown).
func anyName(string) bool { return true }

// NewResponses returns the Responses stream grammar.
func NewResponses() *Responses { return &Responses{once: once{}} }

func (g *Responses) Observe(n int, ev sse.Event) []Violation {
	g.events = n
	doc, typ, vs := typedEvent("responses", n, ev, anyName, g.once)
	if typ == "" {
		return vs
	}
	if g.completed > 0 {
		if g.once.first(RuleRespAfterDone) {
			vs = append(vs, Violation{Event: n, Rule: RuleRespAfterDone, Message: "an event arrived after response.completed",
				Expected: "response.completed as the last event", Actual: typ})
		}
		return vs
	}
	if !g.started {
		g.started = true
		if typ != "response.created" {
			vs = append(vs, Violation{Event: n, Rule: RuleRespCreatedFirst, Message: "the stream does not start with response.created",
				Expected: "response.created", Actual: typ})
		}
	}
	switch typ {
	case "response.output_text.delta":
		g.text.WriteString(doc.Get("delta").String())
	case "response.completed":
		g.completed = n
	case "response.failed", "response.incomplete", "error":
		vs = append(vs, Violation{Event: n, Rule: RuleRespFailed, Message: "the response ended in failure",
			Expected: "response.completed", Actual: typ + " " + snippet(ev.Data)})
	}
	return vs
}

func (g *Responses) Finish(readErr error) []Violation {
	if vs, cut := readErrViolations(readErr); cut {
		return vs
	}
	if g.completed == 0 {
		return []Violation{{Rule: RuleRespNoCompleted, Message: "the stream ended without response.completed",
			Expected: "response.completed", Actual: "end of stream after " + plural(g.events, "event")}}
	}
	return nil
}

func (g *Responses) Text() string { return g.text.String() }
