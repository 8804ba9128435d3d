// Package streams checks SSE streams of the Model-Gateway API (spec section
// 6) against the grammar of each protocol, event by event as they arrive, so
// that a failure names the event number that broke the contract.
//
// Each grammar reads event fields with gjson and leaves field shapes to the
// JSON Schemas (SchemaFor names the schema of each event); the grammars check
// what a schema cannot: order, counts, terminators, and agreement between
// events. Legal variations real gateways produce (event: lines present,
// absent or naming another kind, comments, unknown extra fields, role-only or
// usage-only chat chunks, messages events typed by their event: line alone,
// messages event kinds 6.3 does not name, events of neither a type nor a
// kind's event: line in messages and image streams alike, fewer image previews than
// requested, a last event ended by the end of the stream) are never
// violations of the spec-stated tier.
//
// Rules come in two tiers. Spec-stated rules have Strict=false and fail a
// case. Strict-tier rules (Strict=true) are not stated by the spec but are
// depended on by the official client libraries, so a gateway breaking them
// breaks those clients; they are reported apart and count only under --strict.
package streams

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/tidwall/gjson"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/sse"
)

// Violation is one broken rule.
type Violation struct {
	Event    int    // 1-based event number (0 = the stream as a whole)
	Rule     string // short id, e.g. "chat.done-last"
	Strict   bool   // true for strict-tier rules (not stated by the spec; from official clients)
	Message  string
	Expected string
	Actual   string
}

func (v Violation) String() string {
	where := "stream"
	if v.Event > 0 {
		where = fmt.Sprintf("event %d", v.Event)
	}
	s := fmt.Sprintf("%s: %s: %s", where, v.Rule, v.Message)
	if v.Expected != "" || v.Actual != "" {
		s += fmt.Sprintf(" (expected %s, got %s)", v.Expected, v.Actual)
	}
	return s
}

// Grammar checks one stream. A Grammar is used for one stream only and is
// not safe for concurrent use.
type Grammar interface {
	// Observe checks one event as it arrives. n is 1-based.
	Observe(n int, ev sse.Event) []Violation
	// Finish is called once at the end; readErr is the reader's terminal error (nil for clean EOF).
	Finish(readErr error) []Violation
	// Text returns the text accumulated so far (chat/messages), "" for images.
	Text() string
}

// Ender is a grammar that knows why the generation ended: the final
// stop_reason of a messages stream, the finish_reason of a chat stream,
// and where in the stream it read it.
type Ender interface {
	StopReason() string
	StopPlace() string
}

// Rule ids. Spec-stated unless marked strict.
const (
	RuleIncomplete   = "stream.incomplete"   // the stream was cut mid-event
	RuleTooLarge     = "stream.too-large"    // an event exceeded the reader's cap
	RuleUnterminated = "stream.unterminated" // strict: the last event lacks its blank line
	RuleDataSplit    = "stream.data-split"   // an event over several data: lines
	// Several JSON events in one SSE event: the blank lines between them
	// are missing (6). A reader following SSE joins them into one event
	// that is no JSON; a reader of data: lines one by one reads them.
	RuleEventsJoined = "stream.events-joined"

	RuleChatNotJSON     = "chat.not-json"
	RuleChatError       = "chat.error" // a chunk carries an error field (spec 7)
	RuleChatDoneMissing = "chat.done-missing"
	RuleChatDoneLast    = "chat.done-last"  // events after [DONE]
	RuleChatIDChanged   = "chat.id-changed" // strict
	RuleChatCumulative  = "chat.cumulative-deltas"
	// Strict rules from the official readers (issue 17, point 2.9): what
	// openai-go's ChatCompletionAccumulator and its stream reader need.
	RuleChatIDMissing     = "chat.id-missing"            // strict
	RuleChatFinishCleared = "chat.finish-reason-cleared" // strict
	RuleChatModelMissing  = "chat.model-missing"         // strict
	RuleChatUsageRepeated = "chat.usage-repeated"        // strict
	RuleChatErrorMember   = "chat.error-member"          // strict
	RuleChatMemberType    = "chat.member-type"           // strict: go-openai, langchaingo, the Vercel AI SDK

	RuleMsgNotJSON           = "messages.not-json"
	RuleMsgTypeMissing       = "messages.type-missing"        // a payload type that is no string
	RuleMsgUntyped           = "messages.untyped-event"       // strict: neither a payload type nor an event: name
	RuleMsgNameMismatch      = "messages.event-name-mismatch" // strict
	RuleMsgStartFirst        = "messages.start-first"
	RuleMsgOrder             = "messages.order"
	RuleMsgErrorEvent        = "messages.error-event"
	RuleMsgStopLast          = "messages.stop-last"
	RuleMsgStopMissing       = "messages.stop-missing"
	RuleMsgStopReasonMissing = "messages.stop-reason-missing"
	RuleMsgNoTextDelta       = "messages.no-text-delta"            // no content_block_delta carried delta.text
	RuleMsgNameMissing       = "messages.event-name-missing"       // strict
	RuleMsgBlockIndex        = "messages.block-index"              // strict
	RuleMsgStopReasonPlace   = "messages.stop-reason-not-in-delta" // strict
	RuleMsgDeltaMissing      = "messages.message-delta-missing"    // strict: 6.3 lists it, but names no event for the stop_reason
	RuleMsgTypeFromName      = "messages.payload-type-missing"     // strict
	RuleMsgOutside           = "messages.event-outside-start-stop" // strict
	RuleMsgCumulative        = "messages.cumulative-deltas"        // strict
	// Strict rules from the official readers (issue 17, point 2.9): what
	// anthropic-sdk-go's Message.Accumulate indexes to assemble a message.
	RuleMsgStartMessage = "messages.start-message-missing" // strict
	RuleMsgBlockType    = "messages.block-type-missing"    // strict
	RuleMsgDeltaType    = "messages.delta-type-not-text"   // strict
	RuleMsgDeltaUsage   = "messages.delta-usage-missing"   // strict

	RuleImgNotJSON           = "images.not-json"
	RuleImgTypeMissing       = "images.type-missing"
	RuleImgUntyped           = "images.untyped-event"       // strict: no type, and no event: line naming a kind 6.1 shows
	RuleImgNameMismatch      = "images.event-name-mismatch" // strict
	RuleImgWrongFamily       = "images.wrong-family"
	RuleImgUnknownEvent      = "images.unknown-event" // strict
	RuleImgErrorEvent        = "images.error-event"
	RuleImgIndexMissing      = "images.preview-index-missing"
	RuleImgTooManyPreviews   = "images.too-many-previews"
	RuleImgPreviewAfterDone  = "images.preview-after-completed"
	RuleImgB64Missing        = "images.b64-missing"
	RuleImgCompletedMissing  = "images.completed-missing"
	RuleImgCompletedCount    = "images.completed-count"
	RuleImgPreviewIndexOrder = "images.preview-index-order" // strict
	RuleImgErrorMember       = "images.error-member"        // strict: official OpenAI SDKs' image stream reader
)

// protocol is what the stream check knows of one protocol (spec 6): its
// grammar, the schema each event is checked against, and the model an
// event names. The one table of the protocols on the checking side; the
// catalog's says which endpoint and case fields each has.
type protocol struct {
	grammar func(p catalog.Protocol, maxPreviews, n int) Grammar
	schema  func(p catalog.Protocol, ev sse.Event) string
	model   func(ev sse.Event) gjson.Result // absent where the protocol names none
}

var protocols = map[catalog.Protocol]protocol{
	catalog.ProtocolChat: {
		grammar: func(catalog.Protocol, int, int) Grammar { return NewChat() },
		schema: func(_ catalog.Protocol, ev sse.Event) string {
			if isDone(ev.Data) {
				return ""
			}
			return "chat_chunk"
		},
		model: func(ev sse.Event) gjson.Result {
			if isDone(ev.Data) {
				return gjson.Result{}
			}
			return gjson.GetBytes(ev.Data, "model")
		},
	},
	catalog.ProtocolMessages: {
		grammar: func(catalog.Protocol, int, int) Grammar { return NewMessages() },
		schema: func(_ catalog.Protocol, ev sse.Event) string {
			switch t := eventType(ev); t {
			case "message_start", "content_block_start", "content_block_delta",
				"content_block_stop", "message_delta", "message_stop", "ping":
				return "messages_" + t
			}
			return ""
		},
		model: func(ev sse.Event) gjson.Result {
			if eventType(ev) == "message_start" {
				return gjson.GetBytes(ev.Data, "message.model")
			}
			return gjson.Result{}
		},
	},
	catalog.ProtocolImageGeneration: imageProtocol,
	catalog.ProtocolImageEdit:       imageProtocol,
	catalog.ProtocolResponses: {
		grammar: func(catalog.Protocol, int, int) Grammar { return NewResponses() },
		schema: func(_ catalog.Protocol, ev sse.Event) string {
			if eventType(ev) == "response.completed" {
				return "responses_completed"
			}
			return "responses_event"
		},
	},
}

// imageProtocol serves both image families, each event schema named by
// the family (image_generation.completed → image_generation_completed).
var imageProtocol = protocol{
	grammar: func(p catalog.Protocol, maxPreviews, n int) Grammar { return NewImages(p, maxPreviews, n) },
	schema: func(p catalog.Protocol, ev sse.Event) string {
		switch f := string(p); eventType(ev) {
		case f + ".partial_image":
			return f + "_partial_image"
		case f + ".completed":
			return f + "_completed"
		}
		return ""
	},
}

// New returns the grammar of a protocol: chat, messages, image_generation,
// image_edit or responses (maxPreviews and n are used by the image protocols only).
func New(p catalog.Protocol, maxPreviews, n int) (Grammar, error) {
	if pr, ok := protocols[p]; ok {
		return pr.grammar(p, maxPreviews, n), nil
	}
	return nil, fmt.Errorf("unknown stream protocol %q (want chat, messages, image_generation, image_edit or responses)", p)
}

// Run is the one stream check loop: the engine's and the tests'. It reads
// rd to its end, feeding every event to g; for each event, observe (when
// not nil) gets the event and the violations g found in it, so a caller
// keeps its own checks of that event (schemas, images) beside them. Run
// returns the number of events, the violations of g's Finish, and the
// reader's terminal error unless it is io.EOF (Finish has seen it too).
//
// A last event the end of the stream left without its blank line is read
// when it is whole: the spec separates events by blank lines (6) and does
// not say the last one is followed by one. Whole means its data is what a
// data: line holds, a JSON event or the [DONE] marker; anything else was
// cut, and ends the stream as ErrIncomplete. Reading it is strict-tier
// (RuleUnterminated): SSE clients that follow the WHATWG rules drop it.
func Run(rd *sse.Reader, g Grammar, observe func(n int, ev sse.Event, vs []Violation)) (n int, finish []Violation, err error) {
	for {
		ev, err := rd.Next()
		if err == nil && ev.Unterminated && !gjson.ValidBytes(ev.Data) && !isDone(ev.Data) {
			err = fmt.Errorf("%w (event starting at line %d: the stream ended before its blank line, and its data is not whole)", sse.ErrIncomplete, ev.Line)
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			return n, g.Finish(err), err
		}
		parts := joinedEvents(ev)
		for i, part := range parts {
			n++
			vs := g.Observe(n, part)
			if i == 0 && len(parts) > 1 {
				vs = append(vs, joinedViolation(n, len(parts)))
			}
			vs = append(vs, framing(n, part)...)
			if observe != nil {
				observe(n, part, vs)
			}
		}
	}
}

// joinedViolation: events sent without the blank lines between them. One
// cause, one reason: the events are judged as their data: lines hold
// them, and the missing blank lines are the fault.
func joinedViolation(n, events int) Violation {
	return Violation{Event: n, Rule: RuleEventsJoined,
		Message: fmt.Sprintf("%d JSON events with no blank line between them (spec 6: raw SSE events are separated by blank lines): "+
			"an SSE reader joins their data: lines into one event that is no JSON; judged here one per data: line", events),
		Expected: "a blank line after each event", Actual: fmt.Sprintf("one event of %d data: lines, each a JSON event", events)}
}

// framing is what an event's lines break: a JSON event split over several
// data: lines, and (strict) a last event without its blank line.
func framing(n int, ev sse.Event) []Violation {
	var vs []Violation
	if ev.DataLines > 1 {
		vs = append(vs, Violation{Event: n, Rule: RuleDataSplit,
			Message:  fmt.Sprintf("the event's data is split over %d data: lines (spec 6: each data: line holds a JSON event)", ev.DataLines),
			Expected: "one data: line", Actual: fmt.Sprintf("%d data: lines", ev.DataLines)})
	}
	if ev.Unterminated {
		vs = append(vs, Violation{Event: n, Rule: RuleUnterminated, Strict: true,
			Message:  "the last event is ended by the end of the stream, not a blank line (SSE clients that follow the WHATWG rules drop it)",
			Expected: "a blank line after the last event", Actual: "end of stream"})
	}
	return vs
}

// joinedEvents is the events an SSE event holds: itself, or, where its
// data: lines are each a whole JSON event (or the [DONE] marker) but
// their join is none, one per line: events sent without the blank lines
// between them. The parts carry no event: name, since the one the event
// has is only its last line's.
func joinedEvents(ev sse.Event) []sse.Event {
	if ev.DataLines < 2 || gjson.ValidBytes(ev.Data) || isDone(ev.Data) {
		return []sse.Event{ev}
	}
	lines := bytes.Split(ev.Data, []byte("\n"))
	for _, l := range lines {
		if !gjson.ValidBytes(l) && !isDone(l) {
			return []sse.Event{ev}
		}
	}
	parts := make([]sse.Event, len(lines))
	for i, l := range lines {
		parts[i] = sse.Event{Data: l, DataLines: 1, ID: ev.ID, Line: ev.Line, Unterminated: ev.Unterminated && i == len(lines)-1}
	}
	return parts
}

// readErrViolations maps the reader's terminal error to violations, and says
// whether the stream ended abnormally. When it did, grammars report no
// "missing terminator" rule as well: the cut is the cause, and one failure
// should carry one reason. Errors other than the reader's own (a reset
// connection, a timeout) belong to the transport: the caller reports them,
// so they yield no violation here.
func readErrViolations(err error) ([]Violation, bool) {
	switch {
	case err == nil:
		return nil, false
	case errors.Is(err, sse.ErrIncomplete):
		return []Violation{{Rule: RuleIncomplete, Message: "stream cut mid-event",
			Expected: "every event ended by a blank line", Actual: err.Error()}}, true
	case errors.Is(err, sse.ErrTooLarge):
		return []Violation{{Rule: RuleTooLarge, Message: "an event exceeded the size cap",
			Expected: "events within the reader's cap", Actual: err.Error()}}, true
	}
	return nil, true
}

// SchemaFor maps an event to the name of the JSON Schema that validates its
// data; "" when none applies (chat "[DONE]", data that is not JSON, event
// types without a schema such as a messages "error", or an image event of
// the other family, which the grammar reports).
// The JSON type field decides; the event: line is used only when the data
// has no string type: a messages event typed by its name alone (6.3 shows
// no payload field but delta.text), or an image event whose schema then
// says that type is missing.
func SchemaFor(p catalog.Protocol, ev sse.Event) string {
	pr, ok := protocols[p]
	if !ok || !gjson.ValidBytes(ev.Data) {
		return ""
	}
	return pr.schema(p, ev)
}

// eventType is the type an event declares: the data's string "type", or
// when there is none, the name of its event: line; "" when neither.
func eventType(ev sse.Event) string {
	if t := gjson.GetBytes(ev.Data, "type"); t.Type == gjson.String {
		return t.Str
	}
	if ev.Named {
		return ev.Name
	}
	return ""
}

// EventLabel names an event for a result's event log: its type when it
// declares one, else what it is ("[DONE]", a chat chunk's "object"), else
// "data". Untrimmed: a hostile type may be megabytes long.
func EventLabel(ev sse.Event) string {
	if t := gjson.GetBytes(ev.Data, "type"); t.Type == gjson.String {
		return t.Str
	}
	if isDone(ev.Data) {
		return "[DONE]"
	}
	if o := gjson.GetBytes(ev.Data, "object"); o.Type == gjson.String {
		return o.Str
	}
	if t := eventType(ev); t != "" {
		return t
	}
	return "data"
}

// EventModel is the model an event names: a chat chunk's model, or
// message_start's message.model; absent for every other event and protocol.
// 6.2 and 6.3 show neither, so the engine compares it with the model
// requested in the strict tier only: the official accumulators copy it into
// the result (openai-go's ChatCompletionAccumulator from the chunks,
// anthropic-sdk-go's Message.Accumulate from message_start).
func EventModel(p catalog.Protocol, ev sse.Event) gjson.Result {
	pr, ok := protocols[p]
	if !ok || pr.model == nil || !gjson.ValidBytes(ev.Data) {
		return gjson.Result{}
	}
	return pr.model(ev)
}

// once remembers which rules were reported, for rules that would otherwise
// repeat on every later event (one reason per cause is enough).
type once map[string]bool

func (o once) first(rule string) bool {
	if o[rule] {
		return false
	}
	o[rule] = true
	return true
}

// snippet shortens event data for messages: image events carry megabytes.
func snippet(b []byte) string {
	return strconv.Quote(results.Truncate(string(b), 120))
}

// typedEvent is the common front of the messages, image and Responses
// grammars: the data must be JSON of a known kind. The spec shows no event:
// lines, so the payload's type gives the kind, and an event: line that
// disagrees with it is strict-tier: clients that dispatch on the event name
// (the official Anthropic SDKs read only the events whose name they know)
// read such an event as another kind, or drop it.
//
// An event without a payload type is read as lacksType says. nil (the
// messages stream, whose payload fields 6.3 does not show): it takes its
// kind from its event: line, reported strict, as the official accumulators
// switch on the payload's type. Otherwise lacksType(name) (name "" for an
// event without an event: line) says whether the event is one of the
// protocol's kinds lacking its type, a failure; when it is not, the event
// is of no kind the protocol names (a relay's heartbeat, {"hb":1}) and is
// ignored as other unknown kinds are, reported strict: the official SDKs
// drop it. prefix is the rule prefix ("messages", "images" or
// "responses"); o reports each strict rule once per stream.
func typedEvent(prefix string, n int, ev sse.Event, lacksType func(name string) bool, o once) (gjson.Result, string, []Violation) {
	if !gjson.ValidBytes(ev.Data) {
		return gjson.Result{}, "", []Violation{{Event: n, Rule: prefix + ".not-json",
			Message: "event data is not JSON", Expected: "a JSON object", Actual: snippet(ev.Data)}}
	}
	doc := gjson.ParseBytes(ev.Data)
	t := doc.Get("type")
	name := ""
	if ev.Named {
		name = ev.Name
	}
	if lacksType == nil && !t.Exists() && name != "" {
		var vs []Violation
		if rule := prefix + ".payload-type-missing"; o.first(rule) {
			vs = append(vs, Violation{Event: n, Rule: rule, Strict: true,
				Message:  "event has no type field, only its event: line names its kind (the official accumulators switch on the payload's type)",
				Expected: `"type":"` + name + `"`, Actual: snippet(ev.Data)})
		}
		return doc, name, vs
	}
	if !t.Exists() && (lacksType == nil || !lacksType(name)) {
		// An event of no kind the protocol names, ignored as the other
		// unknown kinds are (a relay's heartbeat). Reported under strict:
		// the official SDKs drop it.
		var vs []Violation
		if rule := prefix + ".untyped-event"; o.first(rule) {
			said := "neither a type field nor an event: line"
			if name != "" {
				said = "no type field, and its event: line names no kind the spec shows"
			}
			vs = append(vs, Violation{Event: n, Rule: rule, Strict: true,
				Message:  "event has " + said + ": ignored, as an event of a kind the spec does not name",
				Expected: `a "type" string`, Actual: snippet(ev.Data)})
		}
		return doc, "", vs
	}
	if t.Type != gjson.String {
		expected := `a "type" string`
		if lacksType == nil {
			expected += " or an event: line"
		}
		return doc, "", []Violation{{Event: n, Rule: prefix + ".type-missing",
			Message: "event has no string type field", Expected: expected, Actual: snippet(ev.Data)}}
	}
	var vs []Violation
	if rule := prefix + ".event-name-mismatch"; name != "" && name != t.Str && o.first(rule) {
		vs = append(vs, Violation{Event: n, Rule: rule, Strict: true,
			Message:  "the event: line disagrees with the type field (clients that dispatch on the event name read another kind)",
			Expected: "event: " + t.Str, Actual: "event: " + name})
	}
	return doc, t.Str, vs
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
