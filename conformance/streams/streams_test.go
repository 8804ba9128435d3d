package streams

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/sse"
)

// runAll runs the engine's loop and returns every violation in order.
func runAll(rd *sse.Reader, g Grammar) (int, []Violation) {
	var all []Violation
	n, finish, _ := Run(rd, g, func(_ int, _ sse.Event, vs []Violation) { all = append(all, vs...) })
	return n, append(all, finish...)
}

// strictRules are the rules that must carry Strict=true; all others false.
var strictRules = map[string]bool{
	RuleChatIDChanged:        true,
	RuleMsgNameMissing:       true,
	RuleMsgBlockIndex:        true,
	RuleImgPreviewIndexOrder: true,
	RuleMsgStopReasonPlace:   true,
	RuleImgUnknownEvent:      true,
	RuleUnterminated:         true,
	RuleMsgNameMismatch:      true,
	RuleImgNameMismatch:      true,
	RuleMsgTypeFromName:      true,
	RuleMsgUntyped:           true,
	RuleMsgOutside:           true,
	RuleMsgCumulative:        true,
	RuleMsgStartMessage:      true,
	RuleMsgBlockType:         true,
	RuleMsgDeltaType:         true,
	RuleMsgDeltaUsage:        true,
	RuleChatIDMissing:        true,
	RuleChatFinishCleared:    true,
	RuleChatModelMissing:     true,
	RuleChatUsageRepeated:    true,
	RuleChatErrorMember:      true,
	RuleChatMemberType:       true,
	RuleImgErrorMember:       true,
	RuleImgUntyped:           true,
	RuleMsgDeltaMissing:      true,
}

// check runs text through the real reader into g, the way the engine does,
// and returns the rule ids in order.
func check(t *testing.T, g Grammar, text string, maxBytes int) []Violation {
	t.Helper()
	_, vs := runAll(sse.NewReader(strings.NewReader(text), maxBytes), g)
	for _, v := range vs {
		assert.Equal(t, strictRules[v.Rule], v.Strict, "strict flag of %s", v.Rule)
		assert.NotEmpty(t, v.Message, "message of %s", v.Rule)
	}
	return vs
}

func ruleIDs(vs []Violation) []string {
	ids := []string{}
	for _, v := range vs {
		ids = append(ids, v.Rule)
	}
	return ids
}

// sse builds a stream from events, each a list of lines, ending every event
// with a blank line.
func stream(events ...string) string {
	var b strings.Builder
	for _, e := range events {
		b.WriteString(e)
		b.WriteString("\n\n")
	}
	return b.String()
}

func named(name, data string) string { return "event: " + name + "\ndata: " + data }
func data(d string) string           { return "data: " + d }

type streamCase struct {
	name  string
	text  string
	max   int      // reader cap; 0 = default
	rules []string // expected rule ids, in order; nil = valid
	event []int    // optional: expected event numbers of the violations
}

func runCases(t *testing.T, cases []streamCase, mk func() Grammar) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.rules
			if want == nil {
				want = []string{}
			}
			vs := check(t, mk(), tc.text, tc.max)
			assert.Equal(t, want, ruleIDs(vs), "%v", vs)
			if tc.event != nil {
				got := []int{}
				for _, v := range vs {
					got = append(got, v.Event)
				}
				assert.Equal(t, tc.event, got)
			}
			// Line ends must not matter.
			if tc.max == 0 && !strings.Contains(tc.text, "\r") {
				crlf := strings.ReplaceAll(tc.text, "\n", "\r\n")
				assert.Equal(t, want, ruleIDs(check(t, mk(), crlf, 0)), "CRLF variant")
				cr := strings.ReplaceAll(tc.text, "\n", "\r")
				assert.Equal(t, want, ruleIDs(check(t, mk(), cr, 0)), "CR variant")
			}
		})
	}
}

const (
	chatRole  = `{"id":"c1","object":"chat.completion.chunk","model":"gen-5.5","choices":[{"index":0,"delta":{"role":"assistant"}}]}`
	chatHello = `{"id":"c1","object":"chat.completion.chunk","model":"gen-5.5","choices":[{"index":0,"delta":{"content":"Hel"}}]}`
	chatLo    = `{"id":"c1","object":"chat.completion.chunk","model":"gen-5.5","choices":[{"index":0,"delta":{"content":"lo"}}]}`
	chatStop  = `{"id":"c1","object":"chat.completion.chunk","model":"gen-5.5","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`
	chatUsage = `{"id":"c1","object":"chat.completion.chunk","model":"gen-5.5","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}`
)

func chatContent(s string) string {
	return fmt.Sprintf(`{"id":"c1","object":"chat.completion.chunk","model":"gen-5.5","choices":[{"index":0,"delta":{"content":%q}}]}`, s)
}

func TestChat(t *testing.T) {
	runCases(t, []streamCase{
		{name: "canonical", text: stream(data(chatRole), data(chatHello), data(chatLo), data(chatStop), data("[DONE]"))},
		{name: "role-only first and usage-only last chunk", text: stream(data(chatRole), data(chatHello), data(chatStop), data(chatUsage), data("[DONE]"))},
		{name: "no role chunk, chunks without content", text: stream(data(chatHello), data(`{"id":"c1","choices":[{"index":0,"delta":{}}]}`), data(chatStop), data("[DONE]"))},
		{name: "event lines present", text: stream(named("chunk", chatHello), named("chunk", chatLo), named("done", "[DONE]"))},
		{name: "comments and ping comments", text: ": OPENROUTER PROCESSING\n\n" + stream(": ping", data(chatHello), ":", data("[DONE]")) + ": bye\n"},
		{name: "data without a space", text: stream("data:"+chatHello, "data:[DONE]")},
		{name: "unknown extra fields everywhere", text: stream(data(`{"id":"c1","model":"gen-5.5","x":1,"system_fingerprint":"fp","choices":[{"index":0,"logprobs":null,"delta":{"content":"a","refusal":null,"y":[1]}}],"z":{}}`), data("[DONE]"))},
		// 6: "each data: line holds a JSON event": one split over lines
		// does not, even when the lines join into JSON.
		{name: "pretty-printed JSON over several data lines", text: stream("data: {\ndata:   \"id\": \"c1\",\ndata:   \"model\": \"gen-5.5\",\ndata:   \"choices\": [{\"index\": 0, \"delta\": {\"content\": \"a\"}}]\ndata: }", data("[DONE]")),
			rules: []string{RuleDataSplit}, event: []int{1}},
		// 6: "raw SSE events are separated by blank lines": events sent
		// without them are one SSE event of several data: lines. They are
		// judged one per line (as a reader of lines reads them), and the
		// missing blank lines are the one reason.
		{name: "events without blank lines between them", text: stream(data(chatHello)+"\n"+data(chatLo)+"\n"+data(chatStop), data("[DONE]")),
			rules: []string{RuleEventsJoined}, event: []int{1}},
		{name: "every event joined, the marker too", text: stream(data(chatHello) + "\n" + data(chatLo) + "\n" + data("[DONE]")),
			rules: []string{RuleEventsJoined}, event: []int{1}},
		{name: "joined lines of which one is no JSON are one broken event", text: stream(data(chatHello)+"\n"+data("{oops"), data("[DONE]")),
			rules: []string{RuleChatNotJSON, RuleDataSplit}, event: []int{1, 1}},
		{name: "null error field is no error", text: stream(data(`{"id":"c1","model":"gen-5.5","error":null,"choices":[]}`), data("[DONE]")),
			rules: []string{RuleChatErrorMember}, event: []int{1}},
		{name: "chunks without id", text: stream(data(`{"choices":[{"delta":{"content":"a"}}]}`), data(chatLo), data("[DONE]"))},
		{name: "retry and id fields", text: "retry: 3000\n\n" + stream("id: 1\n"+data(chatHello), "id: 2\n"+data("[DONE]"))},
		{name: "BOM", text: "\xEF\xBB\xBF" + stream(data(chatHello), data("[DONE]"))},

		{name: "no DONE", text: stream(data(chatHello), data(chatStop)), rules: []string{RuleChatDoneMissing}, event: []int{0}},
		{name: "empty stream", text: "", rules: []string{RuleChatDoneMissing}},
		{name: "event after DONE", text: stream(data(chatHello), data("[DONE]"), data(chatLo), data("[DONE]")), rules: []string{RuleChatDoneLast}, event: []int{3}},
		{name: "not JSON", text: stream(data(chatHello), data("{oops"), data("[DONE]")), rules: []string{RuleChatNotJSON}, event: []int{2}},
		{name: "error chunk", text: stream(data(chatHello), data(`{"error":{"message":"overloaded"}}`), data("[DONE]")), rules: []string{RuleChatError}, event: []int{2}},
		{name: "id changes (strict)", text: stream(data(chatHello), data(strings.Replace(chatLo, `"c1"`, `"c2"`, 1)), data(strings.Replace(chatStop, `"c1"`, `"c3"`, 1)), data("[DONE]")), rules: []string{RuleChatIDChanged}, event: []int{2}},
		{name: "cut mid-event", text: stream(data(chatHello)) + data(`{"id":"c1","choi`), rules: []string{RuleIncomplete}},
		// A whole last line without its blank line is read (strict reports it).
		{name: "DONE without blank line (strict)", text: stream(data(chatHello)) + data("[DONE]") + "\n", rules: []string{RuleUnterminated}, event: []int{2}},
		{name: "last chunk without blank line and no DONE", text: stream(data(chatHello)) + data(chatStop) + "\n", rules: []string{RuleUnterminated, RuleChatDoneMissing}, event: []int{2, 0}},
		// The stream ends right after the marker, without even a line end:
		// whole data is whole (strict reports it).
		{name: "DONE without its line end (strict)", text: stream(data(chatHello)) + data("[DONE]"), rules: []string{RuleUnterminated}, event: []int{2}},
		{name: "cut at a line end inside multi-line JSON", text: stream(data(chatHello)) + "data: {\ndata: \"id\": \"c1\",\n", rules: []string{RuleIncomplete}},
		{name: "cut after an event line", text: stream(data(chatHello)) + "event: chunk\n", rules: []string{RuleIncomplete}},
		// 6.2: deltas are fragments.
		// Cumulative deltas: several in a row, each repeating the whole
		// text before it, that text of real length; chance makes no such
		// run, and the rule fires on nothing less.
		{name: "cumulative deltas", text: stream(data(chatRole), data(chatContent("The")), data(chatContent("The sea")), data(chatContent("The sea is")), data(chatContent("The sea is calm")), data(chatContent("The sea is calm tonight")), data(chatStop), data("[DONE]")),
			rules: []string{RuleChatCumulative}, event: []int{6}},
		{name: "a final delta repeating the text once is no evidence", text: stream(data(chatContent("The")), data(chatContent(" sea")), data(chatContent(" is calm.")), data(chatContent("The sea is calm.")), data("[DONE]"))},
		// A repetitive text (issue 34): the second fragment equals the
		// text before it and adds nothing, so it is no cumulative delta,
		// and the third alone makes no run.
		{name: "repetitive text is no cumulative deltas", text: stream(data(chatContent("ABCDEFGHIJ")), data(chatContent("ABCDEFGHIJ")), data(chatContent("ABCDEFGHIJABCDEFGHIJ")), data(chatStop), data("[DONE]"))},
		{name: "cumulative deltas after a repeated one", text: stream(data(chatContent("The sea is")), data(chatContent("The sea is")), data(chatContent("The sea is calm")), data(chatContent("The sea is calm tonight")), data(chatStop), data("[DONE]")),
			rules: []string{RuleChatCumulative}, event: []int{4}},
		{name: "a line end, then a delta beginning with it", text: stream(data(chatContent("\n")), data(chatContent("\nThe sea is calm.")), data("[DONE]"))},
		{name: "a star, then a delta beginning with it", text: stream(data(chatContent("*")), data(chatContent("**The sea** is calm.")), data("[DONE]"))},
		{name: "short texts repeated in a row", text: stream(data(chatContent("a")), data(chatContent("ab")), data(chatContent("abc")), data(chatContent("abcd")), data("[DONE]"))},
		{name: "a delta repeating the last fragment is a fragment", text: stream(data(chatContent("The sea")), data(chatLo), data(chatLo), data("[DONE]"))},
		{name: "a delta beginning with a text of one word may be a fragment", text: stream(data(chatContent("x")), data(chatContent("x")), data(chatContent("ha")), data(chatContent("ha")), data("[DONE]"))},
		{name: "white space around one word is still one word", text: stream(data(chatContent(" sea ")), data(chatContent(" sea ")), data("[DONE]"))},
		{name: "empty content then text is no repetition", text: stream(data(chatRole), data(chatContent("")), data(chatHello), data(chatContent("")), data(chatLo), data("[DONE]"))},
		{name: "other choices are not the text", text: stream(data(chatHello), data(`{"id":"c1","choices":[{"index":1,"delta":{"content":"Hel"}}]}`), data(chatLo), data("[DONE]"))},
		{name: "event too large", text: stream(data(chatHello), data(strings.Repeat("x", 300)), data("[DONE]")), max: 200, rules: []string{RuleTooLarge}},
		// Strict rules from the official readers (issue 17, point 2.9):
		// openai-go's ChatCompletionAccumulator and its stream reader.
		{name: "a chunk without id after one with an id (strict)", text: stream(data(chatHello), data(`{"object":"chat.completion.chunk","model":"gen-5.5","choices":[{"index":0,"delta":{"content":"lo"}}]}`), data(chatStop), data("[DONE]")),
			rules: []string{RuleChatIDMissing}, event: []int{2}},
		{name: "an empty id after one with an id (strict)", text: stream(data(chatHello), data(strings.Replace(chatLo, `"c1"`, `""`, 1)), data("[DONE]")),
			rules: []string{RuleChatIDMissing}, event: []int{2}},
		{name: "finish_reason cleared by a later chunk (strict)", text: stream(data(chatHello), data(chatStop), data(`{"id":"c1","model":"gen-5.5","choices":[{"index":0,"delta":{},"finish_reason":null}]}`), data("[DONE]")),
			rules: []string{RuleChatFinishCleared}, event: []int{3}},
		// Strict: the typed readers (go-openai, langchaingo, the Vercel AI
		// SDK) fail on a chunk member of another JSON type; null is theirs
		// to skip, and once per stream is enough.
		{name: "choices[].index a string (strict)", text: stream(data(chatHello), data(strings.Replace(chatLo, `"index":0`, `"index":"0"`, 1)), data(strings.Replace(chatStop, `"index":0`, `"index":"0"`, 1)), data("[DONE]")),
			rules: []string{RuleChatMemberType}, event: []int{2}},
		{name: "created a string (strict)", text: stream(data(`{"id":"c1","model":"gen-5.5","created":"1700000000","choices":[{"index":0,"delta":{"content":"a"}}]}`), data("[DONE]")),
			rules: []string{RuleChatMemberType}, event: []int{1}},
		{name: "usage tokens as strings (strict)", text: stream(data(chatHello), data(`{"id":"c1","model":"gen-5.5","choices":[],"usage":{"prompt_tokens":"5"}}`), data("[DONE]")),
			rules: []string{RuleChatMemberType}, event: []int{2}},
		{name: "null members are skipped", text: stream(data(`{"id":"c1","object":null,"created":null,"model":"gen-5.5","system_fingerprint":null,"choices":[{"index":0,"delta":{"role":null,"content":"a"},"finish_reason":null}],"usage":null}`), data("[DONE]"))},
		{name: "finish_reason repeated", text: stream(data(chatHello), data(chatStop), data(chatStop), data("[DONE]"))},
		{name: "usage-only chunk after finish_reason keeps it", text: stream(data(chatHello), data(chatStop), data(chatUsage), data("[DONE]"))},
		{name: "finish_reason of another choice is not cleared by choice 0", text: stream(data(chatHello), data(`{"id":"c1","model":"gen-5.5","choices":[{"index":1,"delta":{},"finish_reason":"stop"}]}`), data(chatLo), data("[DONE]"))},
		{name: "model only on the first chunk (strict)", text: stream(data(chatHello), data(`{"id":"c1","choices":[{"index":0,"delta":{"content":"lo"}}]}`), data(`{"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`), data("[DONE]")),
			rules: []string{RuleChatModelMissing}, event: []int{3}},
		{name: "model missing on earlier chunks only", text: stream(data(`{"id":"c1","choices":[{"index":0,"delta":{"content":"Hel"}}]}`), data(chatLo), data("[DONE]"))},
		{name: "model missing but no DONE reports the DONE", text: stream(data(`{"id":"c1","choices":[{"index":0,"delta":{"content":"Hel"}}]}`)), rules: []string{RuleChatDoneMissing}},
		{name: "usage on every chunk (strict)", text: stream(data(`{"id":"c1","model":"gen-5.5","choices":[{"index":0,"delta":{"content":"Hel"}}],"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6}}`), data(`{"id":"c1","model":"gen-5.5","choices":[{"index":0,"delta":{"content":"lo"}}],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}`), data(chatUsage), data("[DONE]")),
			rules: []string{RuleChatUsageRepeated}, event: []int{2}},
		{name: "usage null on every chunk but the last", text: stream(data(`{"id":"c1","model":"gen-5.5","choices":[{"index":0,"delta":{"content":"Hel"}}],"usage":null}`), data(chatStop), data(chatUsage), data("[DONE]"))},
		{name: "error member null on a chunk (strict)", text: stream(data(chatHello), data(`{"id":"c1","model":"gen-5.5","error":null,"choices":[{"index":0,"delta":{"content":"lo"}}]}`), data("[DONE]")),
			rules: []string{RuleChatErrorMember}, event: []int{2}},
	}, NewChat)
}

func TestChatText(t *testing.T) {
	g := NewChat()
	check(t, g, stream(data(chatRole), data(chatHello),
		data(`{"id":"c1","choices":[{"index":1,"delta":{"content":"other choice"}},{"index":0,"delta":{"content":"lo"}}]}`),
		data(chatUsage), data("[DONE]")), 0)
	assert.Equal(t, "Hello", g.Text())
}

const (
	msgStart   = `{"type":"message_start","message":{"id":"m1","type":"message","role":"assistant","model":"msg-sonnet-5","content":[],"stop_reason":null,"usage":{"input_tokens":5,"output_tokens":1}}}`
	msgPing    = `{"type":"ping"}`
	msgDelta   = `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":3}}`
	msgMaxTok  = `{"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"output_tokens":1024}}`
	msgNoStop  = `{"type":"message_delta","delta":{"stop_reason":null},"usage":{"output_tokens":3}}`
	msgStopEv  = `{"type":"message_stop"}`
	msgErrorEv = `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`
)

func blockStart(i int) string {
	return fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"text","text":""}}`, i)
}
func blockDelta(i int, s string) string {
	return fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":%q}}`, i, s)
}
func blockStop(i int) string { return fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i) }

// msgEvents names each data payload by its type, as the Anthropic API does;
// a payload marked by untyped loses its type after being named.
func msgEvents(payloads ...string) []string {
	out := make([]string, len(payloads))
	for i, p := range payloads {
		p, drop := strings.CutPrefix(p, untypedMark)
		var typ string
		if j := strings.Index(p, `"type":"`); j >= 0 {
			typ = p[j+8:]
			typ = typ[:strings.IndexByte(typ, '"')]
		}
		if field := `"type":"` + typ + `"`; drop && strings.Contains(p, field+",") {
			p = strings.Replace(p, field+",", "", 1)
		} else if drop {
			p = strings.Replace(p, field, "", 1)
		}
		out[i] = named(typ, p)
	}
	return out
}

const untypedMark = "untyped:"

// untyped marks payloads for msgEvents to send without their type.
func untyped(payloads ...string) []string {
	out := make([]string, len(payloads))
	for i, p := range payloads {
		out[i] = untypedMark + p
	}
	return out
}

// namedAll gives every payload the same event: name.
func namedAll(name string, payloads ...string) []string {
	out := make([]string, len(payloads))
	for i, p := range payloads {
		out[i] = named(name, p)
	}
	return out
}

func TestMessages(t *testing.T) {
	canonical := []string{msgStart, blockStart(0), msgPing, blockDelta(0, "Hel"), blockDelta(0, "lo"), blockStop(0), msgDelta, msgStopEv}
	unnamed := func(ps ...string) []string {
		out := make([]string, len(ps))
		for i, p := range ps {
			out[i] = data(p)
		}
		return out
	}
	runCases(t, []streamCase{
		{name: "canonical", text: stream(msgEvents(canonical...)...)},
		{name: "two text blocks", text: stream(msgEvents(msgStart, blockStart(0), blockDelta(0, "a"), blockStop(0), blockStart(1), blockDelta(1, "b"), blockStop(1), msgDelta, msgStopEv)...)},
		{name: "max_tokens stop", text: stream(msgEvents(msgStart, blockStart(0), blockDelta(0, "a"), blockStop(0), msgMaxTok, msgStopEv)...)},
		{name: "pings anywhere", text: stream(msgEvents(msgPing, msgStart, msgPing, blockStart(0), msgPing, blockDelta(0, "a"), blockStop(0), msgPing, msgDelta, msgPing, msgStopEv, msgPing)...)},
		{name: "comments, retry and ids", text: ": hi\n\nretry: 100\n\n" + stream(append([]string{": x\nid: 1\n" + named("message_start", msgStart)}, msgEvents(blockStart(0), blockDelta(0, "a"), blockStop(0), msgDelta, msgStopEv)...)...)},
		{name: "data without a space", text: "event: message_start\ndata:" + msgStart + "\n\n" + stream(msgEvents(blockStart(0), blockDelta(0, "a"), blockStop(0), msgDelta, msgStopEv)...)},
		{name: "unknown event type ignored", text: stream(msgEvents(msgStart, `{"type":"message_metadata","x":1}`, blockStart(0), blockDelta(0, "a"), blockStop(0), msgDelta, msgStopEv)...)},
		{name: "unknown extra fields and thinking blocks", text: stream(msgEvents(msgStart,
			`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""},"extra":true}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hmm"}}`, blockStop(0),
			blockStart(1), `{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"a","new_field":[1]}}`, blockStop(1),
			msgDelta, msgStopEv)...)},
		{name: "several message_delta", text: stream(msgEvents(msgStart, blockStart(0), blockDelta(0, "a"), blockStop(0), msgNoStop, msgDelta, msgStopEv)...)},
		{name: "stop_reason on the event, not in its delta (strict)", text: stream(msgEvents(msgStart, blockStart(0), blockDelta(0, "a"), blockStop(0),
			`{"type":"message_delta","stop_reason":"end_turn","delta":{},"usage":{"output_tokens":3}}`, msgStopEv)...), rules: []string{RuleMsgStopReasonPlace}, event: []int{5}},
		{name: "no content blocks", text: stream(msgEvents(msgStart, msgDelta, msgStopEv)...), rules: []string{RuleMsgNoTextDelta}, event: []int{0}},
		{name: "text only in content_block_start", text: stream(msgEvents(msgStart,
			`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"Hello"}}`, blockStop(0), msgDelta, msgStopEv)...), rules: []string{RuleMsgNoTextDelta}},

		// Events joined without blank lines: their kinds come from their
		// payloads' types; the event: name of the joined event is its last
		// line's alone, so the parts have none (strict says so).
		{name: "events without blank lines between them", text: stream(strings.Join(msgEvents(canonical[:4]...), "\n"), strings.Join(msgEvents(canonical[4:]...), "\n")),
			rules: []string{RuleMsgNameMissing, RuleEventsJoined, RuleEventsJoined}, event: []int{1, 1, 5}},
		{name: "no event lines (strict)", text: stream(unnamed(canonical...)...), rules: []string{RuleMsgNameMissing}, event: []int{1}},
		{name: "some events unnamed (strict)", text: stream(append(msgEvents(msgStart, blockStart(0)), unnamed(blockDelta(0, "a"), blockStop(0), msgDelta, msgStopEv)...)...), rules: []string{RuleMsgNameMissing}, event: []int{3}},
		{name: "event line disagrees with type (strict)", text: stream(append([]string{named("message_start", msgStart), named("content_block_delta", blockStart(0))}, msgEvents(blockDelta(0, "a"), blockStop(0), msgDelta, msgStopEv)...)...), rules: []string{RuleMsgNameMismatch}, event: []int{2}},
		{name: "every event named message: the types decide (strict)", text: stream(namedAll("message", canonical...)...), rules: []string{RuleMsgNameMismatch}, event: []int{1}},
		{name: "events typed by their event: lines alone (strict)", text: stream(msgEvents(untyped(canonical...)...)...), rules: []string{RuleMsgTypeFromName}, event: []int{1}},
		// Neither a type nor an event: line: an unknown kind, ignored
		// (strict says so); a type that is no string is no kind at all.
		{name: "no type and no event: line (strict)", text: stream(append(msgEvents(msgStart, blockStart(0), blockDelta(0, "a"), blockStop(0)), data(`{"heartbeat":1}`), named("message_delta", msgDelta), named("message_stop", msgStopEv))...), rules: []string{RuleMsgUntyped}, event: []int{5}},
		{name: "a type that is no string", text: stream(append(msgEvents(msgStart, blockStart(0), blockDelta(0, "a"), blockStop(0)), data(`{"type":5}`), named("message_delta", msgDelta), named("message_stop", msgStopEv))...), rules: []string{RuleMsgTypeMissing}, event: []int{5}},
		{name: "type of another JSON type under a name", text: stream(append(msgEvents(msgStart, blockStart(0), blockDelta(0, "a"), blockStop(0), msgDelta), named("message_stop", `{"type":7}`))...), rules: []string{RuleMsgTypeMissing, RuleMsgStopMissing}, event: []int{6, 0}},
		// 6.3 orders only the kinds it names.
		{name: "other kinds before message_start and after message_stop (strict)", text: stream(msgEvents(`{"type":"gateway_hello"}`, msgStart, blockStart(0), blockDelta(0, "a"), blockStop(0), msgDelta, msgStopEv, `{"type":"gateway_usage","cost":1}`)...),
			rules: []string{RuleMsgOutside}, event: []int{1}},
		{name: "another kind after message_stop (strict)", text: stream(msgEvents(msgStart, blockStart(0), blockDelta(0, "a"), blockStop(0), msgDelta, msgStopEv, `{"type":"gateway_usage"}`)...),
			rules: []string{RuleMsgOutside}, event: []int{7}},
		{name: "error after message_stop", text: stream(msgEvents(msgStart, blockStart(0), blockDelta(0, "a"), blockStop(0), msgDelta, msgStopEv, msgErrorEv)...), rules: []string{RuleMsgErrorEvent}, event: []int{7}},
		{name: "error before message_start", text: stream(msgEvents(msgErrorEv, msgStart, blockStart(0), blockDelta(0, "a"), blockStop(0), msgDelta, msgStopEv)...), rules: []string{RuleMsgErrorEvent}, event: []int{1}},
		{name: "message_start after message_stop", text: stream(msgEvents(msgStart, blockStart(0), blockDelta(0, "a"), blockStop(0), msgDelta, msgStopEv, msgStart)...), rules: []string{RuleMsgStopLast}, event: []int{7}},
		// The final stop_reason (6.3): in message_delta's delta, on it, or on message_stop.
		{name: "stop_reason on message_stop (strict)", text: stream(msgEvents(msgStart, blockStart(0), blockDelta(0, "a"), blockStop(0), msgNoStop, `{"type":"message_stop","stop_reason":"end_turn"}`)...),
			rules: []string{RuleMsgStopReasonPlace}, event: []int{6}},
		// 6.3 lists message_delta but names no event for the final
		// stop_reason: a stream without one is strict, one cause.
		{name: "stop_reason on message_stop without message_delta (strict)", text: stream(msgEvents(msgStart, blockStart(0), blockDelta(0, "a"), blockStop(0), `{"type":"message_stop","stop_reason":"end_turn"}`)...),
			rules: []string{RuleMsgDeltaMissing}, event: []int{5}},
		{name: "stop_reason in message_stop's message (strict)", text: stream(msgEvents(msgStart, blockStart(0), blockDelta(0, "a"), blockStop(0), msgNoStop, `{"type":"message_stop","message":{"stop_reason":"end_turn"}}`)...),
			rules: []string{RuleMsgStopReasonPlace}, event: []int{6}},
		{name: "stop_reason in message_delta's message (strict)", text: stream(msgEvents(msgStart, blockStart(0), blockDelta(0, "a"), blockStop(0), `{"type":"message_delta","message":{"stop_reason":"end_turn"},"usage":{"output_tokens":1}}`, msgStopEv)...),
			rules: []string{RuleMsgStopReasonPlace}, event: []int{5}},
		{name: "stop_reason in the delta and on message_stop", text: stream(msgEvents(msgStart, blockStart(0), blockDelta(0, "a"), blockStop(0), msgDelta, `{"type":"message_stop","stop_reason":"end_turn"}`)...)},
		// Deltas that repeat the text: the official accumulators join them.
		{name: "cumulative deltas (strict)", text: stream(msgEvents(msgStart, blockStart(0), blockDelta(0, "The sea is"), blockDelta(0, "The sea is calm"), blockDelta(0, "The sea is calm tonight"), blockStop(0), msgDelta, msgStopEv)...),
			rules: []string{RuleMsgCumulative}, event: []int{5}},
		{name: "a final delta repeating the text once is no evidence", text: stream(msgEvents(msgStart, blockStart(0), blockDelta(0, "The"), blockDelta(0, " sea"), blockDelta(0, "The sea"), blockStop(0), msgDelta, msgStopEv)...)},
		{name: "repetitive text is no cumulative deltas", text: stream(msgEvents(msgStart, blockStart(0), blockDelta(0, "ABCDEFGHIJ"), blockDelta(0, "ABCDEFGHIJ"), blockDelta(0, "ABCDEFGHIJABCDEFGHIJ"), blockStop(0), msgDelta, msgStopEv)...)},
		{name: "a line end, then a delta beginning with it", text: stream(msgEvents(msgStart, blockStart(0), blockDelta(0, "\n"), blockDelta(0, "\nThe sea is calm."), blockStop(0), msgDelta, msgStopEv)...)},
		{name: "a delta repeating the last fragment is a fragment", text: stream(msgEvents(msgStart, blockStart(0), blockDelta(0, "The sea"), blockDelta(0, "lo"), blockDelta(0, "lo"), blockStop(0), msgDelta, msgStopEv)...)},
		{name: "a delta beginning with a text of one word may be a fragment", text: stream(msgEvents(msgStart, blockStart(0), blockDelta(0, "ha"), blockDelta(0, "ha"), blockStop(0), msgDelta, msgStopEv)...)},
		// The last event.
		{name: "message_stop without blank line (strict)", text: stream(msgEvents(msgStart, blockStart(0), blockDelta(0, "a"), blockStop(0), msgDelta)...) + named("message_stop", msgStopEv) + "\n",
			rules: []string{RuleUnterminated}, event: []int{6}},
		{name: "cut after message_stop's event line", text: stream(msgEvents(msgStart, blockStart(0), blockDelta(0, "a"), blockStop(0), msgDelta)...) + "event: message_stop\n",
			rules: []string{RuleIncomplete}},
		{name: "cut at a line end", text: stream(msgEvents(msgStart, blockStart(0), blockDelta(0, "a"), blockStop(0), msgDelta)...) + "event: message_stop\ndata: {\"type\":\n",
			rules: []string{RuleIncomplete}},
		{name: "first event not message_start", text: stream(msgEvents(blockStart(0), blockDelta(0, "a"), blockStop(0), msgDelta, msgStopEv)...), rules: []string{RuleMsgStartFirst}, event: []int{1}},
		{name: "error event", text: stream(msgEvents(msgStart, blockStart(0), msgErrorEv, blockStop(0), msgDelta, msgStopEv)...), rules: []string{RuleMsgErrorEvent}, event: []int{3}},
		{name: "error event ends the stream", text: stream(msgEvents(msgStart, msgErrorEv)...), rules: []string{RuleMsgErrorEvent}},
		{name: "event after message_stop", text: stream(msgEvents(msgStart, blockStart(0), blockDelta(0, "a"), blockStop(0), msgDelta, msgStopEv, blockStart(1), msgStopEv)...), rules: []string{RuleMsgStopLast}, event: []int{7}},
		{name: "no message_stop", text: stream(msgEvents(msgStart, blockStart(0), blockDelta(0, "a"), blockStop(0), msgDelta)...), rules: []string{RuleMsgStopMissing}, event: []int{0}},
		{name: "empty stream", text: ": nothing\n\n", rules: []string{RuleMsgStopMissing, RuleMsgNoTextDelta}},
		{name: "stop_reason missing", text: stream(msgEvents(msgStart, blockStart(0), blockDelta(0, "a"), blockStop(0), msgNoStop, msgStopEv)...), rules: []string{RuleMsgStopReasonMissing}, event: []int{6}},
		{name: "no message_delta at all", text: stream(msgEvents(msgStart, blockStart(0), blockDelta(0, "a"), blockStop(0), msgStopEv)...), rules: []string{RuleMsgDeltaMissing, RuleMsgStopReasonMissing}, event: []int{5, 5}},
		// The other kinds of 6.3's list stay required in verified.
		{name: "no message_start", text: stream(msgEvents(blockStart(0), blockDelta(0, "a"), blockStop(0), msgDelta, msgStopEv)...), rules: []string{RuleMsgStartFirst}, event: []int{1}},
		{name: "no content-block events", text: stream(msgEvents(msgStart, msgDelta, msgStopEv)...), rules: []string{RuleMsgNoTextDelta}, event: []int{0}},
		{name: "content block after message_delta", text: stream(msgEvents(msgStart, msgDelta, blockStart(0), blockDelta(0, "a"), blockStop(0), msgStopEv)...), rules: []string{RuleMsgOrder, RuleMsgOrder, RuleMsgOrder}, event: []int{3, 4, 5}},
		{name: "message_start twice", text: stream(msgEvents(msgStart, msgStart, blockStart(0), blockDelta(0, "a"), blockStop(0), msgDelta, msgStopEv)...), rules: []string{RuleMsgOrder}, event: []int{2}},
		{name: "not JSON", text: stream(append(msgEvents(msgStart, blockStart(0), blockDelta(0, "a"), blockStop(0)), named("content_block_start", "{bad"), named("message_delta", msgDelta), named("message_stop", msgStopEv))...), rules: []string{RuleMsgNotJSON}, event: []int{5}},
		{name: "indexes not from 0 (strict)", text: stream(msgEvents(msgStart, blockStart(1), blockDelta(1, "a"), blockStop(1), msgDelta, msgStopEv)...), rules: []string{RuleMsgBlockIndex}, event: []int{2}},
		{name: "indexes with a gap (strict)", text: stream(msgEvents(msgStart, blockStart(0), blockDelta(0, "a"), blockStop(0), blockStart(2), blockStop(2), msgDelta, msgStopEv)...), rules: []string{RuleMsgBlockIndex}, event: []int{5}},
		{name: "delta for an unstarted block (strict)", text: stream(msgEvents(msgStart, blockStart(0), blockDelta(1, "a"), blockStop(0), msgDelta, msgStopEv)...), rules: []string{RuleMsgBlockIndex}, event: []int{3}},
		{name: "delta after block stop (strict)", text: stream(msgEvents(msgStart, blockStart(0), blockStop(0), blockDelta(0, "a"), msgDelta, msgStopEv)...), rules: []string{RuleMsgBlockIndex}},
		{name: "block without index (strict)", text: stream(msgEvents(msgStart, `{"type":"content_block_start","content_block":{"type":"text","text":""}}`, blockDelta(0, "a"), msgDelta, msgStopEv)...), rules: []string{RuleMsgBlockIndex}},
		{name: "cut mid-event", text: stream(msgEvents(msgStart, blockStart(0))...) + "event: content_block_delta\ndata: {\"type\":", rules: []string{RuleIncomplete}},
		{name: "event too large", text: stream(msgEvents(msgStart, blockStart(0), blockDelta(0, strings.Repeat("x", 500)), blockStop(0), msgDelta, msgStopEv)...), max: 300, rules: []string{RuleTooLarge}},
		// Strict rules from the official readers (issue 17, point 2.9):
		// anthropic-sdk-go's Message.Accumulate.
		{name: "message_start without message (strict)", text: stream(msgEvents(`{"type":"message_start"}`, blockStart(0), blockDelta(0, "a"), blockStop(0), msgDelta, msgStopEv)...),
			rules: []string{RuleMsgStartMessage}, event: []int{1}},
		{name: "message_start with a message of another JSON type (strict)", text: stream(msgEvents(`{"type":"message_start","message":"m1"}`, blockStart(0), blockDelta(0, "a"), blockStop(0), msgDelta, msgStopEv)...),
			rules: []string{RuleMsgStartMessage}, event: []int{1}},
		{name: "content_block_start without content_block (strict)", text: stream(msgEvents(msgStart, `{"type":"content_block_start","index":0}`, blockDelta(0, "a"), blockStop(0), msgDelta, msgStopEv)...),
			rules: []string{RuleMsgBlockType}, event: []int{2}},
		{name: "content_block without type (strict)", text: stream(msgEvents(msgStart, `{"type":"content_block_start","index":0,"content_block":{"text":""}}`, blockDelta(0, "a"), blockStop(0), msgDelta, msgStopEv)...),
			rules: []string{RuleMsgBlockType}, event: []int{2}},
		{name: "text delta without delta.type (strict)", text: stream(msgEvents(msgStart, blockStart(0), `{"type":"content_block_delta","index":0,"delta":{"text":"a"}}`, blockDelta(0, "b"), blockStop(0), msgDelta, msgStopEv)...),
			rules: []string{RuleMsgDeltaType}, event: []int{3}},
		{name: "text delta typed text (strict)", text: stream(msgEvents(msgStart, blockStart(0), `{"type":"content_block_delta","index":0,"delta":{"type":"text","text":"a"}}`, blockStop(0), msgDelta, msgStopEv)...),
			rules: []string{RuleMsgDeltaType}, event: []int{3}},
		{name: "message_delta without usage (strict)", text: stream(msgEvents(msgStart, blockStart(0), blockDelta(0, "a"), blockStop(0), `{"type":"message_delta","delta":{"stop_reason":"end_turn"}}`, msgStopEv)...),
			rules: []string{RuleMsgDeltaUsage}, event: []int{5}},
		{name: "message_delta with output_tokens as a string (strict)", text: stream(msgEvents(msgStart, blockStart(0), blockDelta(0, "a"), blockStop(0), `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":"3"}}`, msgStopEv)...),
			rules: []string{RuleMsgDeltaUsage}, event: []int{5}},
		{name: "several readers' rules broken at once (strict)", text: stream(msgEvents(`{"type":"message_start"}`, `{"type":"content_block_start","index":0}`, `{"type":"content_block_delta","index":0,"delta":{"text":"a"}}`, blockStop(0), `{"type":"message_delta","delta":{"stop_reason":"end_turn"}}`, msgStopEv)...),
			rules: []string{RuleMsgStartMessage, RuleMsgBlockType, RuleMsgDeltaType, RuleMsgDeltaUsage}, event: []int{1, 2, 3, 5}},
	}, func() Grammar { return NewMessages() })
}

func TestMessagesTextAndStopReason(t *testing.T) {
	g := NewMessages()
	vs := check(t, g, stream(msgEvents(msgStart,
		`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"Pre-"}}`, blockDelta(0, "Hel"), blockStop(0),
		`{"type":"content_block_start","index":1,"content_block":{"type":"thinking","thinking":""}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"thinking_delta","thinking":"not text"}}`, blockStop(1),
		blockStart(2), blockDelta(2, "lo"), blockStop(2), msgMaxTok, msgStopEv)...), 0)
	assert.Empty(t, vs)
	assert.Equal(t, "Pre-Hello", g.Text())
	assert.Equal(t, "max_tokens", g.StopReason())
}

func TestMessagesStopReasonPlaces(t *testing.T) {
	for name, tail := range map[string][]string{
		"in the delta":         {msgMaxTok, msgStopEv},
		"on message_delta":     {`{"type":"message_delta","stop_reason":"max_tokens","delta":{}}`, msgStopEv},
		"on message_stop":      {msgNoStop, `{"type":"message_stop","stop_reason":"max_tokens"}`},
		"delta wins over stop": {msgMaxTok, `{"type":"message_stop","stop_reason":"end_turn"}`},
	} {
		t.Run(name, func(t *testing.T) {
			g := NewMessages()
			check(t, g, stream(msgEvents(append([]string{msgStart, blockStart(0), blockDelta(0, "a"), blockStop(0)}, tail...)...)...), 0)
			assert.Equal(t, "max_tokens", g.StopReason())
		})
	}
}

func TestEventModel(t *testing.T) {
	for _, tc := range []struct {
		protocol, name, data string
		want                 string // "" for absent
	}{
		{"chat", "", chatHello, "gen-5.5"},
		{"chat", "chunk", chatUsage, "gen-5.5"},
		{"chat", "", `{"choices":[]}`, ""},
		{"chat", "", "[DONE]", ""},
		{"chat", "", "{bad", ""},
		{"messages", "message_start", msgStart, "msg-sonnet-5"},
		{"messages", "message_start", `{"message":{"model":"msg-opus-5"}}`, "msg-opus-5"}, // typed by its name
		{"messages", "", `{"type":"message_delta","message":{"model":"x"}}`, ""},
		{"messages", "content_block_delta", blockDelta(0, "a"), ""},
		{"image_edit", "", imgEvent("image_edit", "completed", `,"model":"gen-image-2"`), ""},
	} {
		ev := sse.Event{Name: tc.name, Named: tc.name != "", Data: []byte(tc.data)}
		got := EventModel(catalog.Protocol(tc.protocol), ev)
		if tc.want == "" {
			assert.False(t, got.Exists(), "%s %s", tc.protocol, tc.data)
		} else {
			assert.Equal(t, tc.want, got.Str, "%s %s", tc.protocol, tc.data)
		}
	}
}

// TestRunUnterminated: the last event without its blank line is read when
// it is whole, and is a cut when it is not.
func TestRunUnterminated(t *testing.T) {
	g := NewChat()
	n, finish, err := Run(sse.NewReader(strings.NewReader(stream(data(chatHello))+data("[DONE]")+"\n"), 0), g, nil)
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	assert.Empty(t, finish)

	g = NewChat()
	n, finish, err = Run(sse.NewReader(strings.NewReader(stream(data(chatHello))+data("[DONE]")), 0), g, nil)
	require.NoError(t, err, "a last line without its line end is whole")
	assert.Equal(t, 2, n)
	assert.Empty(t, finish)

	for _, cut := range []string{"data: {\"id\":\n", "data: {\"id\":", "data: [DON"} {
		g = NewChat()
		n, finish, err = Run(sse.NewReader(strings.NewReader(stream(data(chatHello))+cut), 0), g, nil)
		require.ErrorIs(t, err, sse.ErrIncomplete, cut)
		assert.Equal(t, 1, n, "the cut event is not observed")
		assert.Equal(t, []string{RuleIncomplete}, ruleIDs(finish))
		assert.Contains(t, finish[0].Actual, "line 3")
	}

	g = NewChat()
	n, finish, err = Run(sse.NewReader(strings.NewReader(stream(data(chatHello))+"data: {\"id\":\n"), 0), g, nil)
	require.ErrorIs(t, err, sse.ErrIncomplete)
	assert.Equal(t, 1, n, "the cut event is not observed")
	assert.Equal(t, []string{RuleIncomplete}, ruleIDs(finish))
	assert.Contains(t, finish[0].Actual, "line 3")
}

func imgEvent(family, kind string, extra string) string {
	return fmt.Sprintf(`{"type":"%s.%s","b64_json":"iVBORw0KGgo="%s}`, family, kind, extra)
}
func preview(family string, i int) string {
	return named(family+".partial_image", imgEvent(family, "partial_image", fmt.Sprintf(`,"partial_image_index":%d`, i)))
}
func completed(family string) string {
	return named(family+".completed", imgEvent(family, "completed", `,"size":"1024x1024","output_format":"png","usage":{"total_tokens":3}`))
}

func TestImages(t *testing.T) {
	const e, gen = "image_edit", "image_generation"
	type imgCase struct {
		streamCase
		family      string
		maxPreviews int
		n           int
	}
	cases := []imgCase{
		{streamCase{name: "edit with two previews", text: stream(preview(e, 0), preview(e, 1), completed(e))}, e, 2, 1},
		{streamCase{name: "fewer previews than requested", text: stream(preview(e, 0), completed(e))}, e, 3, 1},
		{streamCase{name: "zero previews", text: stream(completed(e))}, e, 2, 1},
		{streamCase{name: "partial_images 0", text: stream(completed(gen))}, gen, 0, 1},
		{streamCase{name: "generation family", text: stream(preview(gen, 0), completed(gen))}, gen, 1, 1},
		{streamCase{name: "no event lines", text: stream(data(imgEvent(e, "partial_image", `,"partial_image_index":0`)), data(imgEvent(e, "completed", "")))}, e, 1, 1},
		{streamCase{name: "extra fields, comments", text: ": keepalive\n\n" + stream(data(imgEvent(e, "partial_image", `,"partial_image_index":0,"created_at":1,"size":"1024x1024","x":{"y":[]}`)), ": k", completed(e))}, e, 1, 1},
		{streamCase{name: "two images", text: stream(preview(e, 0), completed(e), preview(e, 0), completed(e))}, e, 1, 2},

		{streamCase{name: "no completed event", text: stream(preview(e, 0), preview(e, 1)), rules: []string{RuleImgCompletedMissing}, event: []int{0}}, e, 2, 1},
		{streamCase{name: "empty stream", text: "", rules: []string{RuleImgCompletedMissing}}, e, 2, 1},
		{streamCase{name: "two completed for n 1", text: stream(completed(e), completed(e)), rules: []string{RuleImgCompletedCount}, event: []int{2}}, e, 0, 1},
		{streamCase{name: "one completed for n 2", text: stream(completed(e)), rules: []string{RuleImgCompletedCount}, event: []int{0}}, e, 0, 2},
		{streamCase{name: "other family", text: stream(preview(gen, 0), completed(e)), rules: []string{RuleImgWrongFamily}, event: []int{1}}, e, 1, 1},
		{streamCase{name: "other family completed only", text: stream(completed(e)), rules: []string{RuleImgWrongFamily, RuleImgCompletedMissing}}, gen, 1, 1},
		// Another type of the other family's prefix is unknown, not wrong.
		{streamCase{name: "the other family's in_progress (strict)", text: stream(named(gen+".in_progress", `{"type":"image_generation.in_progress"}`), preview(e, 0), completed(e)), rules: []string{RuleImgUnknownEvent}, event: []int{1}}, e, 1, 1},
		{streamCase{name: "preview after completed", text: stream(completed(e), preview(e, 0)), rules: []string{RuleImgPreviewAfterDone}, event: []int{2}}, e, 1, 1},
		{streamCase{name: "too many previews", text: stream(preview(e, 0), preview(e, 1), preview(e, 2), completed(e)), rules: []string{RuleImgTooManyPreviews}, event: []int{3}}, e, 2, 1},
		{streamCase{name: "previews with partial_images 0", text: stream(preview(e, 0), completed(e)), rules: []string{RuleImgTooManyPreviews}}, e, 0, 1},
		{streamCase{name: "unknown event type", text: stream(named("image_edit.progress", `{"type":"image_edit.progress"}`), completed(e)), rules: []string{RuleImgUnknownEvent}}, e, 1, 1},
		{streamCase{name: "error event", text: stream(preview(e, 0), named("error", `{"type":"error","error":{"message":"moderation"}}`)), rules: []string{RuleImgErrorEvent}, event: []int{2}}, e, 1, 1},
		{streamCase{name: "error field in a completed event", text: stream(data(imgEvent(e, "completed", `,"error":{"message":"x"}`))), rules: []string{RuleImgErrorEvent}}, e, 1, 1},
		{streamCase{name: "preview without index", text: stream(data(imgEvent(e, "partial_image", "")), completed(e)), rules: []string{RuleImgIndexMissing}}, e, 1, 1},
		{streamCase{name: "completed without b64_json", text: stream(data(`{"type":"image_edit.completed"}`)), rules: []string{RuleImgB64Missing}}, e, 1, 1},
		{streamCase{name: "event line disagrees (strict)", text: stream(named("image_edit.completed", imgEvent(e, "partial_image", `,"partial_image_index":0`)), completed(e)), rules: []string{RuleImgNameMismatch}}, e, 1, 1},
		{streamCase{name: "every event named message (strict)", text: stream(named("message", imgEvent(e, "partial_image", `,"partial_image_index":0`)), named("message", imgEvent(e, "completed", ""))), rules: []string{RuleImgNameMismatch}, event: []int{1}}, e, 1, 1},
		{streamCase{name: "the event: line does not stand for a missing type", text: stream(named("image_edit.completed", `{"b64_json":"iVBORw0KGgo="}`)), rules: []string{RuleImgTypeMissing, RuleImgCompletedMissing}}, e, 1, 1},
		{streamCase{name: "completed without blank line (strict)", text: stream(preview(e, 0)) + completed(e) + "\n", rules: []string{RuleUnterminated}, event: []int{2}}, e, 1, 1},
		{streamCase{name: "cut at a line end", text: stream(preview(e, 0)) + "event: image_edit.completed\ndata: {\"type\":\"image_edit.completed\",\n", rules: []string{RuleIncomplete}}, e, 1, 1},
		{streamCase{name: "not JSON", text: stream(data("iVBORw0KGgo="), completed(e)), rules: []string{RuleImgNotJSON}}, e, 1, 1},
		// An event of no type and no event: line naming a kind 6.1 shows
		// is ignored, as in a messages stream (strict says so); a type
		// that is no string is no kind at all.
		{streamCase{name: "untyped event (strict)", text: stream(data(`{"hb":1}`), preview(e, 0), data(`{"hb":1}`), completed(e)), rules: []string{RuleImgUntyped}, event: []int{1}}, e, 1, 1},
		{streamCase{name: "untyped event under another event: line (strict)", text: stream(preview(gen, 0), named("keepalive", `{"hb":1}`), completed(gen)), rules: []string{RuleImgUntyped}, event: []int{2}}, gen, 1, 1},
		{streamCase{name: "an untyped image is no completed image", text: stream(data(`{"b64_json":"iVBORw0KGgo="}`)), rules: []string{RuleImgUntyped, RuleImgCompletedMissing}, event: []int{1, 0}}, e, 1, 1},
		{streamCase{name: "a type that is no string", text: stream(data(`{"type":5}`), completed(e)), rules: []string{RuleImgTypeMissing}, event: []int{1}}, e, 1, 1},
		{streamCase{name: "index not from 0 (strict)", text: stream(preview(e, 1), preview(e, 2), completed(e)), rules: []string{RuleImgPreviewIndexOrder}, event: []int{1}}, e, 2, 1},
		{streamCase{name: "index skips (strict)", text: stream(preview(e, 0), preview(e, 2), completed(e)), rules: []string{RuleImgPreviewIndexOrder}, event: []int{2}}, e, 2, 1},
		{streamCase{name: "cut mid-event", text: stream(preview(e, 0)) + "event: image_edit.completed\ndata: {\"type\":\"image_edit.completed\",\"b64_json\":\"iVBO", rules: []string{RuleIncomplete}}, e, 1, 1},
		// Strict (issue 17, point 2.9): openai-go's stream reader ends an
		// image stream on any error member, null included.
		{streamCase{name: "error member null on a preview (strict)", text: stream(data(imgEvent(e, "partial_image", `,"partial_image_index":0,"error":null`)), completed(e)), rules: []string{RuleImgErrorMember}, event: []int{1}}, e, 1, 1},
		{streamCase{name: "error member null on every event, reported once (strict)", text: stream(data(imgEvent(e, "partial_image", `,"partial_image_index":0,"error":null`)), data(imgEvent(e, "completed", `,"error":null`))), rules: []string{RuleImgErrorMember}, event: []int{1}}, e, 1, 1},
		{streamCase{name: "completed too large", text: stream(preview(e, 0), completed(e)), max: 100, rules: []string{RuleTooLarge}}, e, 1, 1},
	}
	for _, tc := range cases {
		runCases(t, []streamCase{tc.streamCase}, func() Grammar { return NewImages(catalog.Protocol(tc.family), tc.maxPreviews, tc.n) })
	}
}

func TestImagesCarryNoText(t *testing.T) {
	g := NewImages(catalog.ProtocolImageGeneration, 2, 1)
	vs := check(t, g, stream(preview("image_generation", 0), preview("image_generation", 1), completed("image_generation")), 0)
	assert.Empty(t, vs)
	assert.Equal(t, "", g.Text())
}

func TestReadErrors(t *testing.T) {
	for _, tc := range []struct {
		err  error
		rule string
	}{
		{fmt.Errorf("%w (event starting at line 3)", sse.ErrIncomplete), RuleIncomplete},
		{fmt.Errorf("%w of 5 bytes", sse.ErrTooLarge), RuleTooLarge},
		{errors.New("connection reset by peer"), ""}, // the transport's to report
	} {
		for _, g := range []Grammar{NewChat(), NewMessages(), NewImages("image_edit", 1, 1)} {
			vs := g.Finish(tc.err)
			if tc.rule == "" {
				assert.Empty(t, vs, "no missing-terminator rule after a transport error")
				continue
			}
			require.Len(t, vs, 1, "the cut is the only reason reported")
			assert.Equal(t, tc.rule, vs[0].Rule)
			assert.Equal(t, 0, vs[0].Event)
			assert.Contains(t, vs[0].Actual, tc.err.Error())
		}
	}
}

func TestSchemaFor(t *testing.T) {
	ev := func(name, d string) sse.Event { return sse.Event{Name: name, Named: name != "", Data: []byte(d)} }
	for _, tc := range []struct {
		protocol string
		ev       sse.Event
		want     string
	}{
		{"chat", ev("", chatHello), "chat_chunk"},
		{"chat", ev("", chatUsage), "chat_chunk"},
		{"chat", ev("", "[DONE]"), ""},
		{"chat", ev("", "{bad"), ""},
		{"messages", ev("message_start", msgStart), "messages_message_start"},
		{"messages", ev("", blockStart(0)), "messages_content_block_start"},
		{"messages", ev("", blockDelta(0, "a")), "messages_content_block_delta"},
		{"messages", ev("", blockStop(0)), "messages_content_block_stop"},
		{"messages", ev("", msgDelta), "messages_message_delta"},
		{"messages", ev("", msgStopEv), "messages_message_stop"},
		{"messages", ev("", msgPing), "messages_ping"},
		{"messages", ev("ping", msgStopEv), "messages_message_stop"},    // type wins over the name
		{"messages", ev("message_stop", `{}`), "messages_message_stop"}, // no type: the name decides
		{"messages", ev("error", msgErrorEv), ""},
		{"messages", ev("", `{"type":"message_metadata"}`), ""},
		{"image_generation", ev("", imgEvent("image_generation", "partial_image", "")), "image_generation_partial_image"},
		{"image_generation", ev("", imgEvent("image_generation", "completed", "")), "image_generation_completed"},
		{"image_edit", ev("", imgEvent("image_edit", "partial_image", "")), "image_edit_partial_image"},
		{"image_edit", ev("", imgEvent("image_edit", "completed", "")), "image_edit_completed"},
		{"image_edit", ev("", imgEvent("image_generation", "completed", "")), ""},
		{"image_edit", ev("", "not json"), ""},
		{"nope", ev("", "{}"), ""},
	} {
		assert.Equal(t, tc.want, SchemaFor(catalog.Protocol(tc.protocol), tc.ev), "%s %s %s", tc.protocol, tc.ev.Name, tc.ev.Data)
	}
}

func TestNew(t *testing.T) {
	for _, p := range catalog.Protocols {
		g, err := New(p, 1, 1)
		require.NoError(t, err)
		require.NotNil(t, g)
	}
	_, err := New("nope", 0, 0)
	assert.Error(t, err)
}

// TestRunIntegration drives each grammar from the real reader with an
// onEvent hook, the way the engine records per-event timing and schemas.
func TestRunIntegration(t *testing.T) {
	text := "\xEF\xBB\xBF: hello\r\n\r\n" + strings.ReplaceAll(stream(msgEvents(msgStart, blockStart(0), blockDelta(0, "Hi"), blockStop(0), msgDelta, msgStopEv)...), "\n", "\r\n")
	g := NewMessages()
	var schemas []string
	var vs []Violation
	n, finish, err := Run(sse.NewReader(strings.NewReader(text), 0), g, func(_ int, ev sse.Event, evs []Violation) {
		schemas = append(schemas, SchemaFor("messages", ev))
		vs = append(vs, evs...)
	})
	require.NoError(t, err)
	vs = append(vs, finish...)
	assert.Equal(t, 6, n)
	assert.Empty(t, vs)
	assert.Equal(t, "Hi", g.Text())
	assert.Equal(t, "end_turn", g.StopReason())
	assert.Equal(t, []string{"messages_message_start", "messages_content_block_start", "messages_content_block_delta",
		"messages_content_block_stop", "messages_message_delta", "messages_message_stop"}, schemas)
}

func TestViolationString(t *testing.T) {
	v := Violation{Event: 3, Rule: RuleChatDoneLast, Message: "an event arrived after [DONE]", Expected: "[DONE] last", Actual: `"x"`}
	assert.Equal(t, `event 3: chat.done-last: an event arrived after [DONE] (expected [DONE] last, got "x")`, v.String())
	assert.Equal(t, "stream: chat.done-missing: m", Violation{Rule: RuleChatDoneMissing, Message: "m"}.String())
}
