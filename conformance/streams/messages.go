package streams

import (
	"cmp"
	"fmt"

	"github.com/tidwall/gjson"

	"github.com/gwconform/gwconform/conformance/sse"
)

// Messages checks a messages stream (spec 6.3): message_start first, then
// content-block events (text in delta.text), message_delta (strict: see
// messageStop), message_stop last, and the final stop_reason; ping anywhere; an error event fails
// wherever it comes. Only the kinds 6.3 names are ordered: an event of
// another kind is ignored, as the interface this follows announces that new
// event types may be added and its clients skip them; before message_start
// or after message_stop, outside the order 6.3 saw, it is reported in the
// strict tier.
type Messages struct {
	phase      msgPhase
	stopReason string
	stopPlace  string // where stopReason was read
	textDeltas int    // content_block_delta events carrying delta.text
	text       textBuf
	events     int
	errored    bool // an error event arrived: it is the reason the stream ends early
	once       once

	// strict: content-block indexes
	nextIndex int
	open      map[int64]bool
}

type msgPhase int

const (
	phaseStart   msgPhase = iota
	phaseContent          // after message_start
	phaseDelta            // after a message_delta
	phaseStopped          // after message_stop
)

// NewMessages returns the messages stream grammar.
func NewMessages() *Messages { return &Messages{once: once{}, open: map[int64]bool{}} }

// StopReason is the last non-empty stop_reason of a message_delta, read from
// its delta or, failing that, from the event itself or its message; when
// no message_delta carried one, message_stop's.
func (g *Messages) StopReason() string { return g.stopReason }

// StopPlace is where StopReason was read ("message_stop stop_reason"), for
// a reason that names it; "message_delta delta.stop_reason" when none was.
func (g *Messages) StopPlace() string { return cmp.Or(g.stopPlace, "message_delta delta.stop_reason") }

func (g *Messages) Text() string { return g.text.String() }

// orderedKinds are the kinds 6.3 names ("message_start, content-block
// events including content_block_delta, message_delta, message_stop"): the
// only ones whose order is checked.
var orderedKinds = map[string]bool{
	"message_start": true, "content_block_start": true, "content_block_delta": true,
	"content_block_stop": true, "message_delta": true, "message_stop": true,
}

func (g *Messages) Observe(n int, ev sse.Event) []Violation {
	g.events = n
	doc, typ, vs := typedEvent("messages", n, ev, nil, g.once)
	if typ == "" {
		return vs
	}
	// Strict: the official Anthropic SDKs dispatch on the SSE event name and
	// drop events that have none, so such a stream is empty to them.
	if (!ev.Named || ev.Name == "") && g.once.first(RuleMsgNameMissing) {
		vs = append(vs, Violation{Event: n, Rule: RuleMsgNameMissing, Strict: true,
			Message:  "event has no event: line (the official Anthropic SDKs drop unnamed events)",
			Expected: "event: " + typ, Actual: "no event: line"})
	}
	if !orderedKinds[typ] {
		return append(vs, g.unordered(n, typ, ev)...)
	}
	if g.phase == phaseStopped {
		if g.once.first(RuleMsgStopLast) {
			vs = append(vs, Violation{Event: n, Rule: RuleMsgStopLast, Message: "an event arrived after message_stop",
				Expected: "message_stop as the last event", Actual: typ})
		}
		return vs
	}
	if g.phase == phaseStart && typ != "message_start" {
		vs = append(vs, Violation{Event: n, Rule: RuleMsgStartFirst, Message: "the first event is not message_start",
			Expected: "message_start", Actual: typ})
		g.phase = phaseContent // check the rest as if it had come
	}
	switch typ {
	case "message_start":
		vs = append(vs, g.messageStart(n, doc)...)
	case "content_block_start", "content_block_delta", "content_block_stop":
		if g.phase != phaseContent {
			vs = append(vs, g.order(n, typ, "content-block events before message_delta"))
		}
		vs = append(vs, g.block(n, typ, doc)...)
	case "message_delta":
		vs = append(vs, g.messageDelta(n, doc)...)
	case "message_stop":
		vs = append(vs, g.messageStop(n, doc)...)
	}
	return vs
}

// unordered judges an event of a kind whose place 6.3 does not fix. ping
// is the keep-alive of the interface 6.3 follows, sent anywhere; the
// official SDKs skip it by name. An error event fails wherever it comes.
// Any other kind is ignored, but before message_start or after
// message_stop it is outside the order 6.3 saw (strict).
func (g *Messages) unordered(n int, typ string, ev sse.Event) []Violation {
	switch {
	case typ == "ping":
		return nil
	case typ == "error":
		g.errored = true
		return []Violation{{Event: n, Rule: RuleMsgErrorEvent, Message: "the stream carries an error event",
			Expected: "no error event", Actual: snippet(ev.Data)}}
	case (g.phase == phaseStart || g.phase == phaseStopped) && g.once.first(RuleMsgOutside):
		return []Violation{{Event: n, Rule: RuleMsgOutside, Strict: true,
			Message:  "an event of a kind 6.3 does not name comes " + g.outside() + ", outside the order 6.3 saw",
			Expected: "message_start first and message_stop last", Actual: typ + " " + g.outside()}}
	}
	return nil
}

// messageStart opens the message.
func (g *Messages) messageStart(n int, doc gjson.Result) []Violation {
	var vs []Violation
	if g.phase != phaseStart {
		vs = append(vs, g.order(n, "message_start", "message_start only once, first"))
	}
	g.phase = phaseContent
	// Strict: anthropic-sdk-go's Message.Accumulate takes the whole
	// message from message_start's message (*acc = event.Message), so
	// without it the result has no id, role or model.
	if m := doc.Get("message"); !m.IsObject() && g.once.first(RuleMsgStartMessage) {
		vs = append(vs, Violation{Event: n, Rule: RuleMsgStartMessage, Strict: true,
			Message:  "message_start carries no message object: anthropic-sdk-go Message.Accumulate needs message_start.message, whose id, role and model become the result's, and the JS SDK's MessageStream takes it as its snapshot and reads its content and usage",
			Expected: `message_start with a "message" object`, Actual: describe(m)})
	}
	return vs
}

// messageDelta ends the content and may carry the stop reason.
func (g *Messages) messageDelta(n int, doc gjson.Result) []Violation {
	var vs []Violation
	g.phase = phaseDelta
	// Strict: anthropic-sdk-go's Message.Accumulate sets the result's
	// usage.output_tokens from every message_delta's usage, so one
	// without it leaves the message counting 0 output tokens.
	if u := doc.Get("usage.output_tokens"); u.Type != gjson.Number && g.once.first(RuleMsgDeltaUsage) {
		vs = append(vs, Violation{Event: n, Rule: RuleMsgDeltaUsage, Strict: true,
			Message:  "message_delta carries no numeric usage.output_tokens: anthropic-sdk-go Message.Accumulate needs it, as it overwrites the message's output_tokens from each message_delta (0 when absent), and the JS SDK's MessageStream reads usage.output_tokens of every message_delta (a TypeError without usage)",
			Expected: "usage.output_tokens, an integer", Actual: describe(u)})
	}
	// 6.3 confirms completion by "the final message's stop_reason" and
	// shows no payload field of message_delta, so stop_reason counts in
	// its delta or on the event. The official SDKs read delta.stop_reason:
	// elsewhere is a strict-tier violation.
	if r := doc.Get("delta.stop_reason"); r.Type == gjson.String && r.Str != "" {
		g.stopReason, g.stopPlace = r.Str, "message_delta delta.stop_reason"
	} else if where, r, ok := carriedStopReason(doc); ok {
		g.stopReason, g.stopPlace = r, "message_delta "+where
		if g.once.first(RuleMsgStopReasonPlace) {
			vs = append(vs, Violation{Event: n, Rule: RuleMsgStopReasonPlace, Strict: true,
				Message:  "stop_reason is in message_delta's " + where + ", not in its delta (the official SDKs read delta.stop_reason)",
				Expected: "delta.stop_reason", Actual: where + " " + r})
		}
	}
	return vs
}

// carriedStopReason finds a stop_reason an event carries outside a delta:
// on the event, or in the message it carries. 6.3 confirms completion by
// "the final message's stop_reason" without saying where it sits, so
// either place counts; where names the place.
func carriedStopReason(doc gjson.Result) (where, reason string, ok bool) {
	for _, path := range []string{"stop_reason", "message.stop_reason"} {
		if r := doc.Get(path); r.Type == gjson.String && r.Str != "" {
			return path, r.Str, true
		}
	}
	return "", "", false
}

// messageStop ends the stream. Completion is confirmed by "the final
// message's stop_reason" (6.3), which message_stop may carry too when no
// message_delta did.
//
// 6.3 lists message_delta among the kinds it saw, but puts the stop_reason
// on "the final message" without naming the event that carries it, so a
// stream without message_delta is no verified failure when the stop_reason
// arrives elsewhere: its absence is strict, as the official SDKs read the
// final stop_reason from message_delta's delta. message_start, the
// content-block events and message_stop stay required (start-first,
// no-text-delta, stop-missing). A missing message_delta is one cause: the
// place of a stop_reason on message_stop is not reported beside it.
func (g *Messages) messageStop(n int, doc gjson.Result) []Violation {
	var vs []Violation
	noDelta := g.phase == phaseContent
	g.phase = phaseStopped
	if noDelta && g.once.first(RuleMsgDeltaMissing) {
		vs = append(vs, Violation{Event: n, Rule: RuleMsgDeltaMissing, Strict: true,
			Message:  "message_stop arrived with no message_delta before it: 6.3 lists message_delta but names no event for the final stop_reason, so this is strict (the official SDKs read the final stop_reason from message_delta's delta)",
			Expected: "message_delta before message_stop", Actual: "message_stop after the content-block events"})
	}
	if g.stopReason != "" {
		return vs
	}
	if where, r, ok := carriedStopReason(doc); ok {
		g.stopReason, g.stopPlace = r, "message_stop "+where
		if !noDelta && g.once.first(RuleMsgStopReasonPlace) {
			vs = append(vs, Violation{Event: n, Rule: RuleMsgStopReasonPlace, Strict: true,
				Message:  "stop_reason is in message_stop's " + where + ", not in message_delta's delta (the official SDKs read delta.stop_reason)",
				Expected: "message_delta with delta.stop_reason", Actual: "message_stop " + where + " " + r})
		}
		return vs
	}
	return append(vs, Violation{Event: n, Rule: RuleMsgStopReasonMissing,
		Message:  "message_stop arrived but neither a message_delta nor message_stop carried a stop_reason",
		Expected: "a stop_reason (e.g. end_turn) in message_delta", Actual: "none"})
}

// outside says where an event outside the ordered kinds' span comes.
func (g *Messages) outside() string {
	if g.phase == phaseStopped {
		return "after message_stop"
	}
	return "before message_start"
}

func (g *Messages) order(n int, typ, expected string) Violation {
	return Violation{Event: n, Rule: RuleMsgOrder, Message: typ + " out of order",
		Expected: expected, Actual: fmt.Sprintf("%s after %s", typ, g.phase)}
}

func (p msgPhase) String() string {
	return [...]string{"the start", "message_start", "message_delta", "message_stop"}[p]
}

// block accumulates text and checks content-block indexes. Indexes are not
// shown by the spec, so their rules are strict: the official Anthropic
// accumulator stores blocks by position, so indexes must be dense from 0,
// and a delta or stop must name a started, unstopped block.
func (g *Messages) block(n int, typ string, doc gjson.Result) []Violation {
	var vs []Violation
	switch typ {
	case "content_block_start":
		b := doc.Get("content_block")
		if b.Get("type").Str == "text" {
			g.text.WriteString(b.Get("text").Str)
		}
		// Strict: anthropic-sdk-go's Message.Accumulate builds each block
		// from content_block_start's content_block; without its type the
		// block is of no kind, and readers that take the text of the
		// blocks typed text (2.4) find none.
		if bt := b.Get("type"); (bt.Type != gjson.String || bt.Str == "") && g.once.first(RuleMsgBlockType) {
			vs = append(vs, Violation{Event: n, Rule: RuleMsgBlockType, Strict: true,
				Message:  "content_block_start carries no content_block with a type: anthropic-sdk-go Message.Accumulate needs content_block (its type names the block the deltas fill)",
				Expected: `content_block {"type":"text",...}`, Actual: describe(b)})
		}
	case "content_block_delta":
		if t := doc.Get("delta.text"); t.Type == gjson.String {
			g.textDeltas++
			// Strict: anthropic-sdk-go's Message.Accumulate appends
			// delta.text only for delta.type text_delta; any other (or no)
			// delta type drops the text.
			if dt := doc.Get("delta.type"); dt.Str != "text_delta" && g.once.first(RuleMsgDeltaType) {
				vs = append(vs, Violation{Event: n, Rule: RuleMsgDeltaType, Strict: true,
					Message:  "a text delta's delta.type is not text_delta: anthropic-sdk-go Message.Accumulate needs delta.type text_delta to append delta.text, and drops it otherwise",
					Expected: `delta.type "text_delta"`, Actual: "delta.type " + describe(dt)})
			}
			// 6.3 does not call the deltas fragments, as 6.2 does, so a
			// delta repeating the text before it is strict-tier: the
			// official accumulators (Message.Accumulate, the JS
			// MessageStream) append each delta.text to the block.
			if g.text.cumulative(t.Str) && g.once.first(RuleMsgCumulative) {
				vs = append(vs, Violation{Event: n, Rule: RuleMsgCumulative, Strict: true,
					Message:  "text deltas repeat the whole text before them, delta after delta: the official accumulators append deltas, so they get the text many times",
					Expected: "a delta that continues the text", Actual: snippet([]byte(t.Raw))})
			}
			g.text.WriteString(t.Str)
		}
	}
	return append(vs, g.blockIndex(n, typ, doc)...)
}

// blockIndex checks the index of a content-block event (strict).
func (g *Messages) blockIndex(n int, typ string, doc gjson.Result) []Violation {
	idx := doc.Get("index")
	bad := func(actual string) []Violation {
		if !g.once.first(RuleMsgBlockIndex) {
			return nil
		}
		return []Violation{{Event: n, Rule: RuleMsgBlockIndex, Strict: true,
			Message:  "content-block index breaks the official Anthropic accumulator (blocks stored by position)",
			Expected: g.expectedIndex(typ), Actual: actual}}
	}
	if idx.Type != gjson.Number || idx.Num != float64(idx.Int()) || idx.Int() < 0 {
		return bad(typ + " without an integer index")
	}
	i := idx.Int()
	switch typ {
	case "content_block_start":
		if i != int64(g.nextIndex) {
			return bad(fmt.Sprintf("content_block_start index %d", i))
		}
		g.nextIndex++
		g.open[i] = true
	default:
		if !g.open[i] {
			return bad(fmt.Sprintf("%s index %d", typ, i))
		}
		if typ == "content_block_stop" {
			delete(g.open, i)
		}
	}
	return nil
}

func (g *Messages) expectedIndex(typ string) string {
	if typ == "content_block_start" {
		return fmt.Sprintf("content_block_start index %d", g.nextIndex)
	}
	return typ + " for a started block"
}

func (g *Messages) Finish(readErr error) []Violation {
	if vs, cut := readErrViolations(readErr); cut {
		return vs
	}
	if g.errored {
		return nil // the error event is the reason
	}
	var vs []Violation
	if g.phase != phaseStopped {
		vs = append(vs, Violation{Rule: RuleMsgStopMissing, Message: "the stream ended without message_stop",
			Expected: "message_stop as the last event", Actual: "end of stream after " + plural(g.events, "event")})
	}
	// 6.3: "content-block events including content_block_delta (text in
	// delta.text)": text carried only elsewhere (content_block_start) is
	// not the stream the spec shows.
	if g.textDeltas == 0 {
		vs = append(vs, Violation{Rule: RuleMsgNoTextDelta, Message: "no content_block_delta carried text in delta.text (spec 6.3)",
			Expected: "at least one content_block_delta with delta.text", Actual: "none"})
	}
	return vs
}
