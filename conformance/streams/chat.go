package streams

import (
	"bytes"

	"github.com/tidwall/gjson"

	"github.com/gwconform/gwconform/conformance/sse"
)

// chat checks a chat-completions stream (spec 6.2): JSON chunks, text
// fragments in choices[].delta.content, ended by data: [DONE] with nothing
// after it. event: lines are ignored: the spec shows none, and a chunk has
// no type for them to agree with.
type chat struct {
	text         textBuf
	finishReason string // the last finish_reason of the first choice
	done         int    // event number of [DONE], 0 before it
	events       int
	id           string // first chunk id seen
	once         once
}

// NewChat returns the chat-completions stream grammar.
func NewChat() Grammar { return &chat{once: once{}} }

// isDone accepts surrounding white space around the marker, as the official
// clients do (they compare a prefix), so "data:  [DONE]" is no false alarm.
func isDone(data []byte) bool { return string(bytes.TrimSpace(data)) == "[DONE]" }

func (g *chat) Observe(n int, ev sse.Event) []Violation {
	g.events = n
	if g.done > 0 {
		if g.once.first(RuleChatDoneLast) {
			return []Violation{{Event: n, Rule: RuleChatDoneLast,
				Message: "an event arrived after [DONE]", Expected: "[DONE] as the last event",
				Actual: snippet(ev.Data)}}
		}
		return nil
	}
	if isDone(ev.Data) {
		g.done = n
		return nil
	}
	if !gjson.ValidBytes(ev.Data) {
		return []Violation{{Event: n, Rule: RuleChatNotJSON, Message: "chunk data is not JSON",
			Expected: "a JSON chunk or [DONE]", Actual: snippet(ev.Data)}}
	}
	doc := gjson.ParseBytes(ev.Data)
	var vs []Violation
	if e := doc.Get("error"); e.Exists() && e.Type != gjson.Null {
		vs = append(vs, Violation{Event: n, Rule: RuleChatError, Message: "a chunk carries an error field",
			Expected: "no error field", Actual: snippet([]byte(e.Raw))})
	}
	// Strict: the OpenAI SDK's stream accumulator refuses chunks whose id
	// differs from the first one. Chunks without an id are not compared.
	if id := doc.Get("id"); id.Type == gjson.String && id.Str != "" {
		if g.id == "" {
			g.id = id.Str
		} else if id.Str != g.id && g.once.first(RuleChatIDChanged) {
			vs = append(vs, Violation{Event: n, Rule: RuleChatIDChanged, Strict: true,
				Message:  "chunk id changed within the stream (the official OpenAI accumulator rejects this)",
				Expected: "id " + g.id, Actual: "id " + id.Str})
		}
	}
	// Text of the first choice; with n=1 (every verified call) that is all.
	doc.Get("choices").ForEach(func(_, c gjson.Result) bool {
		if i := c.Get("index"); i.Exists() && i.Int() != 0 {
			return true
		}
		if s := c.Get("delta.content"); s.Type == gjson.String {
			// 6.2: "Text fragments are in choices[].delta.content": a
			// delta that repeats the whole text so far is no fragment.
			if g.text.repeatedBy(s.Str) && g.once.first(RuleChatCumulative) {
				vs = append(vs, Violation{Event: n, Rule: RuleChatCumulative,
					Message:  "a text delta repeats the whole text before it: deltas are cumulative, not fragments (spec 6.2), so a client joining them gets the text many times",
					Expected: "a fragment that continues the text", Actual: snippet([]byte(s.Raw))})
			}
			g.text.WriteString(s.Str)
		}
		if f := c.Get("finish_reason"); f.Type == gjson.String && f.Str != "" {
			g.finishReason = f.Str
		}
		return true
	})
	return vs
}

func (g *chat) Finish(readErr error) []Violation {
	if vs, cut := readErrViolations(readErr); cut {
		return vs
	}
	if g.done == 0 {
		return []Violation{{Rule: RuleChatDoneMissing, Message: "the stream ended without [DONE]",
			Expected: "data: [DONE] as the last event", Actual: "end of stream after " + plural(g.events, "event")}}
	}
	return nil
}

func (g *chat) Text() string { return g.text.String() }

// StopReason is the last finish_reason of the first choice, "" when none.
func (g *chat) StopReason() string { return g.finishReason }
