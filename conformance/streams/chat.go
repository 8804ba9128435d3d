package streams

import (
	"bytes"
	"fmt"
	"strings"

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

	// strict: what openai-go's ChatCompletionAccumulator keeps
	lastChunk  int  // event number of the last JSON chunk
	lastModel  bool // the last JSON chunk named a model
	usageChunk int  // event number of the first chunk with a usage object
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
	vs, ended := g.errorMember(n, doc)
	if ended {
		return vs
	}
	// Strict: openai-go's ChatCompletionAccumulator copies every chunk's
	// model into the result, so the last chunk must name it.
	g.lastChunk = n
	m := doc.Get("model")
	g.lastModel = m.Type == gjson.String && m.Str != ""
	vs = append(vs, g.usage(n, doc)...)
	vs = append(vs, g.chunkID(n, doc)...)
	vs = append(vs, g.memberTypes(n, doc)...)
	// Text of the first choice; with n=1 (every verified call) that is all.
	doc.Get("choices").ForEach(func(_, c gjson.Result) bool {
		if i := c.Get("index"); !i.Exists() || i.Int() == 0 {
			vs = append(vs, g.choice(n, c)...)
		}
		return true
	})
	return vs
}

// errorMember judges a chunk's error member; ended is true when it is the
// stream's error, which the official readers stop at, so the rules of what
// they assemble do not look at this chunk.
func (g *chat) errorMember(n int, doc gjson.Result) (vs []Violation, ended bool) {
	e := doc.Get("error")
	switch {
	case e.Exists() && e.Type != gjson.Null:
		return []Violation{{Event: n, Rule: RuleChatError, Message: "a chunk carries an error field",
			Expected: "no error field", Actual: snippet([]byte(e.Raw))}}, true
	case e.Exists() && g.once.first(RuleChatErrorMember):
		// Strict: openai-go's stream reader ends the stream with an error
		// on any chunk that has an error member, null included.
		return []Violation{{Event: n, Rule: RuleChatErrorMember, Strict: true,
			Message:  "a chunk carries an error member (null): openai-go's stream reader, which feeds ChatCompletionAccumulator, ends the stream with an error on any error member",
			Expected: "no error member", Actual: `"error":null`}}, false
	}
	return nil, false
}

// usage (strict): the accumulator adds up the usage of every chunk, so
// usage reported on more than one chunk is counted more than once.
func (g *chat) usage(n int, doc gjson.Result) []Violation {
	if !doc.Get("usage").IsObject() {
		return nil
	}
	if g.usageChunk == 0 {
		g.usageChunk = n
		return nil
	}
	if !g.once.first(RuleChatUsageRepeated) {
		return nil
	}
	return []Violation{{Event: n, Rule: RuleChatUsageRepeated, Strict: true,
		Message:  "usage is reported on more than one chunk: openai-go ChatCompletionAccumulator adds the usage of every chunk, so the result counts the tokens several times",
		Expected: "usage on one chunk only (the others null or absent)", Actual: fmt.Sprintf("usage on events %d and %d", g.usageChunk, n)}}
}

// chunkID (strict): the OpenAI SDK's stream accumulator refuses chunks
// whose id differs from the first one, and (openai-go's AddChunk) a chunk
// without one after chunks that had one, dropping its text.
func (g *chat) chunkID(n int, doc gjson.Result) []Violation {
	id := doc.Get("id")
	switch {
	case id.Type == gjson.String && id.Str != "" && g.id == "":
		g.id = id.Str
	case id.Type == gjson.String && id.Str != "":
		if id.Str != g.id && g.once.first(RuleChatIDChanged) {
			return []Violation{{Event: n, Rule: RuleChatIDChanged, Strict: true,
				Message:  "chunk id changed within the stream (the official OpenAI accumulator rejects this)",
				Expected: "id " + g.id, Actual: "id " + id.Str}}
		}
	case g.id != "" && g.once.first(RuleChatIDMissing):
		return []Violation{{Event: n, Rule: RuleChatIDMissing, Strict: true,
			Message:  "a chunk has no id after chunks that had one: openai-go ChatCompletionAccumulator needs every chunk's id to match the first and rejects this chunk, text and all",
			Expected: "id " + g.id, Actual: describe(id)}}
	}
	return nil
}

// chunkMemberTypes are the JSON types of the chunk members that typed
// stream readers decode (go-openai's ChatCompletionStreamResponse and
// langchaingo's StreamedChatResponsePayload through encoding/json, the
// Vercel AI SDK's chunk schema): a member of another type fails the chunk.
// 6.2 shows none of them but delta.content, which the schema holds.
var chunkMemberTypes = []struct {
	path string
	typ  gjson.Type
}{
	{"id", gjson.String}, {"object", gjson.String}, {"model", gjson.String},
	{"created", gjson.Number}, {"choices.#.index", gjson.Number},
	{"choices.#.delta.role", gjson.String}, {"choices.#.finish_reason", gjson.String},
	{"usage.prompt_tokens", gjson.Number}, {"usage.completion_tokens", gjson.Number}, {"usage.total_tokens", gjson.Number},
}

// memberTypes (strict): a chunk member of another JSON type than the typed
// readers decode it into; null and absent members are theirs to skip.
func (g *chat) memberTypes(n int, doc gjson.Result) []Violation {
	if g.once[RuleChatMemberType] {
		return nil // one reason per stream
	}
	for _, m := range chunkMemberTypes {
		vals := []gjson.Result{doc.Get(m.path)}
		if strings.Contains(m.path, "#") {
			vals = vals[0].Array()
		}
		for _, v := range vals {
			if !v.Exists() || v.Type == gjson.Null || v.Type == m.typ {
				continue
			}
			g.once.first(RuleChatMemberType)
			return []Violation{{Event: n, Rule: RuleChatMemberType, Strict: true,
				Message: strings.Replace(m.path, ".#.", "[].", 1) + " is " + typeName(v) + ": go-openai and langchaingo decode chunks with encoding/json " +
					"and fail on (or drop) such a chunk, and the Vercel AI SDK's chunk schema refuses it",
				Expected: typeName(gjson.Result{Type: m.typ}), Actual: snippet([]byte(v.Raw))}}
		}
	}
	return nil
}

// typeName is a JSON value's type in words: a string, a number, a
// boolean, an object, an array.
func typeName(v gjson.Result) string {
	switch {
	case v.Type == gjson.String:
		return "a string"
	case v.Type == gjson.Number:
		return "a number"
	case v.IsBool():
		return "a boolean"
	case v.IsArray():
		return "an array"
	}
	return "an object"
}

// choice reads the first choice of a chunk: its text fragment and its
// finish_reason.
func (g *chat) choice(n int, c gjson.Result) []Violation {
	var vs []Violation
	if s := c.Get("delta.content"); s.Type == gjson.String {
		// 6.2: "Text fragments are in choices[].delta.content": deltas
		// that each repeat the whole text so far are no fragments.
		if g.text.cumulative(s.Str) && g.once.first(RuleChatCumulative) {
			vs = append(vs, Violation{Event: n, Rule: RuleChatCumulative,
				Message:  "text deltas repeat the whole text before them, delta after delta: deltas are cumulative, not fragments (spec 6.2), so a client joining them gets the text many times",
				Expected: "a fragment that continues the text", Actual: snippet([]byte(s.Raw))})
		}
		g.text.WriteString(s.Str)
	}
	if f := c.Get("finish_reason"); f.Type == gjson.String && f.Str != "" {
		g.finishReason = f.Str
	} else if g.finishReason != "" && g.once.first(RuleChatFinishCleared) {
		// Strict: openai-go's ChatCompletionAccumulator copies each
		// chunk's finish_reason into the choice, so a choice after the
		// one that finished, without a finish_reason, clears it.
		vs = append(vs, Violation{Event: n, Rule: RuleChatFinishCleared, Strict: true,
			Message:  "a chunk after the finish_reason " + g.finishReason + " carries the choice without one: openai-go ChatCompletionAccumulator takes each chunk's finish_reason, so the result ends with none",
			Expected: "no choice after the one with finish_reason (or the same finish_reason again)", Actual: "finish_reason " + describe(f)})
	}
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
	if g.lastChunk > 0 && !g.lastModel {
		return []Violation{{Event: g.lastChunk, Rule: RuleChatModelMissing, Strict: true,
			Message:  "the last chunk names no model: openai-go ChatCompletionAccumulator copies each chunk's model into the result, so the completion it assembles has none",
			Expected: "a model on every chunk, the last too", Actual: "no model"}}
	}
	return nil
}

func (g *chat) Text() string { return g.text.String() }

// StopReason is the last finish_reason of the first choice, "" when none.
func (g *chat) StopReason() string { return g.finishReason }

func (g *chat) StopPlace() string { return "choices[0].finish_reason" }
