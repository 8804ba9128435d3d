package check

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/catalog"
)

// The text a client reads: a message's text blocks joined (2.4), a chat
// completion's content (2.3); absent where the body has no place for it.
func TestGeneratedText(t *testing.T) {
	for _, tc := range []struct {
		name   string
		body   string
		exists bool
		want   string
	}{
		{"one text block", `{"content":[{"type":"text","text":"The sea."}]}`, true, "The sea."},
		{"text blocks joined", `{"content":[{"type":"text","text":"The "},{"type":"text","text":"sea."}]}`, true, "The sea."},
		{"an empty first block", `{"content":[{"type":"text","text":""},{"type":"text","text":"The sea."}]}`, true, "The sea."},
		{"blocks of other types skipped", `{"content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"The sea."}]}`, true, "The sea."},
		{"no text block", `{"content":[{"type":"tool_use","id":"x"}]}`, true, ""},
		{"chat content", `{"choices":[{"message":{"content":"The sea."}}]}`, true, "The sea."},
		{"chat content null", `{"choices":[{"message":{"content":null}}]}`, false, ""},
		{"no content at all", `{"object":"list"}`, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := generatedText([]byte(tc.body))
			assert.Equal(t, tc.exists, v.Exists())
			assert.Equal(t, tc.want, v.Str)
		})
	}
}

// The rules of a chat completion and a message hold in every case: the
// model used, a text, and max_tokens as a bound on the output.
func TestCheckKind(t *testing.T) {
	message := func(model, text string, outputTokens int) string {
		return `{"type":"message","model":"` + model + `","content":[{"type":"text","text":"` + text + `"}],"usage":{"output_tokens":` + strconv.Itoa(outputTokens) + `}}`
	}
	chat := func(model, text string) string {
		return `{"object":"chat.completion","model":"` + model + `","choices":[{"index":0,"message":{"role":"assistant","content":"` + text + `"}}]}`
	}
	chatWith := func(extra, text, finish string) string {
		return `{"object":"chat.completion","model":"gen-5.5",` + extra + `,"choices":[{"index":0,"message":{"role":"assistant","content":"` + text + `"},"finish_reason":"` + finish + `"}]}`
	}
	withMax := &catalog.Request{JSON: map[string]any{"max_tokens": uint64(256)}}
	for _, tc := range []struct {
		name    string
		kind    string
		model   string
		request *catalog.Request
		body    string
		says    []string // one reason holding each, in order; none: no reason
	}{
		{"message as requested", kindMessage, "msg-haiku-4-5-20251001", withMax, message("msg-haiku-4-5-20251001", "The sea.", 4), nil},
		{"message by its undated alias and vendor", kindMessage, "msg-haiku-4-5-20251001", withMax, message("anthropic/msg-haiku-4-5", "The sea.", 4), nil},
		{"message of another model", kindMessage, "msg-opus-5", withMax, message("msg-sonnet-5", "The sea.", 4), []string{"not the model requested (spec 2.3, 2.4"}},
		{"message model not a string", kindMessage, "msg-opus-5", withMax, `{"model":5,"content":[{"type":"text","text":"x"}]}`, []string{"not the model requested"}},
		{"message without text", kindMessage, "msg-opus-5", withMax, message("msg-opus-5", "", 0), []string{"text blocks joined are empty"}},
		{"message at the bound", kindMessage, "msg-opus-5", withMax, message("msg-opus-5", "The sea.", 256), nil},
		{"message past the bound", kindMessage, "msg-opus-5", withMax, message("msg-opus-5", "The sea.", 257), []string{"more output tokens than max_tokens"}},
		{"message without max_tokens", kindMessage, "msg-opus-5", &catalog.Request{JSON: map[string]any{}}, message("msg-opus-5", "The sea.", 5000), nil},
		{"chat with a snapshot", kindChatCompletion, "gen-5.5", withMax, chat("gen-5.5-0613", "The sea."), nil},
		{"chat without text", kindChatCompletion, "gen-5.5", withMax, chat("gen-5.5", ""), []string{"chat completion has no text"}},
		{"chat text at 8 characters a token", kindChatCompletion, "gen-5.5", withMax, chat("gen-5.5", strings.Repeat("a", 8*256)), nil},
		{"chat text in runes, not bytes", kindChatCompletion, "gen-5.5", withMax, chat("gen-5.5", strings.Repeat("é", 8*256)), nil},
		{"chat text past the bound", kindChatCompletion, "gen-5.5", withMax, chat("gen-5.5", strings.Repeat("a", 8*256+1)), []string{"longer than max_tokens allows (spec 4.2"}},
		// 3,075 characters: about 768 tokens of English at 4 a token.
		{"chat text of three times the bound in English", kindChatCompletion, "gen-5.5", withMax, chat("gen-5.5", strings.Repeat("The sea is calm tonight. ", 123)), []string{"longer than max_tokens allows"}},
		{"max_tokens as a text value", kindChatCompletion, "gen-5.5", &catalog.Request{Multipart: []catalog.FormField{{Name: "max_tokens", Value: "1"}}},
			chat("gen-5.5", strings.Repeat("a", 9)), []string{"longer than max_tokens allows"}},
		// Usage, which 2.3 does not demand, must not contradict the bound.
		{"chat usage within the bound", kindChatCompletion, "gen-5.5", withMax, chatWith(`"usage":{"completion_tokens":256}`, "The sea.", "stop"), nil},
		{"chat usage past the bound", kindChatCompletion, "gen-5.5", withMax, chatWith(`"usage":{"completion_tokens":800}`, "The sea.", "stop"), []string{"more output tokens than max_tokens"}},
		// An empty text cut by the max_tokens sent: the limit was reached.
		{"chat empty at the limit", kindChatCompletion, "gen-5.5", withMax, chatWith(`"x":1`, "", "length"), nil},
		{"chat empty at the limit without max_tokens sent", kindChatCompletion, "gen-5.5", &catalog.Request{JSON: map[string]any{}}, chatWith(`"x":1`, "", "length"), []string{"chat completion has no text"}},
		{"chat empty, stopped", kindChatCompletion, "gen-5.5", withMax, chatWith(`"x":1`, "", "stop"), []string{"chat completion has no text"}},
		{"message empty at the limit", kindMessage, "msg-opus-5", withMax, `{"type":"message","model":"msg-opus-5","content":[],"stop_reason":"max_tokens","usage":{"output_tokens":256}}`, nil},
		{"message stopped at the bound", kindMessage, "msg-opus-5", withMax, `{"type":"message","model":"msg-opus-5","content":[{"type":"text","text":"A long"}],"stop_reason":"max_tokens","usage":{"output_tokens":256}}`, nil},
		{"message stopped short of the bound it names", kindMessage, "msg-opus-5", withMax, `{"type":"message","model":"msg-opus-5","content":[{"type":"text","text":"A long"}],"stop_reason":"max_tokens","usage":{"output_tokens":128}}`, []string{"fewer output tokens than max_tokens"}},
		{"message ended its turn early", kindMessage, "msg-opus-5", withMax, `{"type":"message","model":"msg-opus-5","content":[{"type":"text","text":"Short."}],"stop_reason":"end_turn","usage":{"output_tokens":3}}`, nil},
		{"message empty, ended its turn", kindMessage, "msg-opus-5", withMax, `{"type":"message","model":"msg-opus-5","content":[],"stop_reason":"end_turn","usage":{"output_tokens":0}}`, []string{"text blocks joined are empty"}},
		{"chat without a choice", kindChatCompletion, "gen-5.5", withMax, `{"object":"chat.completion","model":"gen-5.5","choices":[]}`, []string{"chat completion has no choice"}},
		{"model list: no model, no text", kindModelList, "gen-5.5", withMax, `{"object":"list","data":[]}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &checker{model: tc.model, request: tc.request}
			c.checkKind(tc.kind, []byte(tc.body))
			require.Len(t, c.reasons, len(tc.says), "%v", c.reasons)
			for i, says := range tc.says {
				assert.Contains(t, c.reasons[i].Message, says)
			}
		})
	}
}

// Every image result holds n images of the requested format and size; what
// the case states itself wins.
func TestExpectedImages(t *testing.T) {
	jsonReq := func(m map[string]any) *catalog.Request { return &catalog.Request{JSON: m} }
	for _, tc := range []struct {
		name    string
		exp     *catalog.ImageExpect
		request *catalog.Request
		want    catalog.ImageExpect
	}{
		{"n omitted is 1", nil, jsonReq(map[string]any{"prompt": "x"}), catalog.ImageExpect{Count: 1}},
		{"all from the request", nil, jsonReq(map[string]any{"n": uint64(2), "size": "1536x1024", "output_format": "webp"}),
			catalog.ImageExpect{Count: 2, Size: "1536x1024", Format: "webp"}},
		{"multipart text fields", nil, &catalog.Request{Multipart: []catalog.FormField{{Name: "image", File: "ref.png"}, {Name: "n", Value: "2"}, {Name: "size", Value: "1024x1024"}}},
			catalog.ImageExpect{Count: 2, Size: "1024x1024"}},
		{"size auto is not derived", nil, jsonReq(map[string]any{"size": "auto"}), catalog.ImageExpect{Count: 1}},
		{"a value that is none", nil, jsonReq(map[string]any{"n": "two", "size": "big", "output_format": "gif"}), catalog.ImageExpect{}},
		{"the case's own wins", &catalog.ImageExpect{Size: "1254x1254", Count: 3, Alpha: new(false)}, jsonReq(map[string]any{"n": uint64(1), "size": "1024x1024"}),
			catalog.ImageExpect{Size: "1254x1254", Count: 3, Alpha: new(false)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, *ExpectedImages(tc.exp, tc.request))
		})
	}
}

// A refusal whose status the spec does not show may come as a success a
// client must treat as failure (2.2, 7).
func TestRefusedInBody(t *testing.T) {
	refusal := func(path string) *catalog.Case {
		return &catalog.Case{Request: catalog.Request{Path: path}, Expect: catalog.Expect{StatusIn: &catalog.StatusSet{Classes: []string{"4xx"}}}}
	}
	exact := &catalog.Case{Request: catalog.Request{Path: "/v1/images/generations"}, Expect: catalog.Expect{Status: 400}}
	for _, tc := range []struct {
		name string
		cs   *catalog.Case
		body string
		want bool
	}{
		{"error member", refusal("/v1/images/generations"), `{"error":{"message":"no image permission"}}`, true},
		{"empty data on an image endpoint", refusal("/v1/images/edits"), `{"created":1767225600,"data":[]}`, true},
		{"empty data elsewhere", refusal("/v1/models"), `{"object":"list","data":[]}`, false},
		{"error null", refusal("/v1/images/generations"), `{"error":null,"data":[{"b64_json":"x"}]}`, false},
		{"an image result", refusal("/v1/images/generations"), `{"data":[{"b64_json":"x"}]}`, false},
		{"not JSON", refusal("/v1/images/generations"), `error: no permission`, false},
		{"a refusal whose status the spec shows", exact, `{"error":{"message":"bad"}}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, refusedInBody(tc.cs, []byte(tc.body)))
		})
	}
}

// background names the output background (2.2): a value that is none (an
// echoed auto, an empty string, none) fails in every tier.
func TestBackgroundNamed(t *testing.T) {
	for _, tc := range []struct {
		background string
		strict     bool
		reported   bool
	}{
		{"auto", true, true},
		{"auto", false, true},
		{"", false, true},
		{"none", false, true},
		{"opaque", false, false},
		{"transparent", false, false},
		{"opaque", true, false},
	} {
		t.Run(tc.background, func(t *testing.T) {
			c := &checker{strict: tc.strict}
			c.checkImageResult([]byte(`{"background":"`+tc.background+`","data":[]}`), &catalog.ImageExpect{}, false)
			assert.Equal(t, tc.reported, hasMessage(c, "background names no output background"), "%v", c.reasons)
		})
	}
}

func hasMessage(c *checker, says string) bool {
	for _, r := range c.reasons {
		if strings.Contains(r.Message, says) {
			return true
		}
	}
	return false
}

// No reason speaks gjson's query language.
func TestPathInWords(t *testing.T) {
	for in, want := range map[string]string{
		`output.#(type=="message").content.#(type=="output_text").text`: "output[type: message].content[type: output_text].text",
		`data.#(id=="gen-image-2").object`:                              "data[id: gen-image-2].object",
		"choices.0.message.content":                                     "choices.0.message.content",
	} {
		assert.Equal(t, want, pathInWords(in))
	}
}

// "Model used" names the model requested in any spelling of the id sent,
// or names the spec's model in a vendor's words: an alias (company-chat)
// is answered with the model it stands for.
func TestModelUsedUnderAnAlias(t *testing.T) {
	chat := func(model string) string {
		return `{"object":"chat.completion","model":"` + model + `","choices":[{"index":0,"message":{"role":"assistant","content":"The sea."},"finish_reason":"stop"}]}`
	}
	for _, tc := range []struct {
		got  string
		same bool
	}{
		{"company-chat", true},
		{"gpt-5.5-2026-01-01", true},
		{"openai/gpt-5.5", true},
		{"gen-5.5", true},
		{"gpt-5.6", false},
		{"company-chat-2", false},
	} {
		c := &checker{model: "company-chat", spec: "gen-5.5"}
		c.checkKind(kindChatCompletion, []byte(chat(tc.got)))
		assert.Equal(t, tc.same, !hasMessage(c, "the model used is not the model requested"), "%s: %v", tc.got, c.reasons)
	}
}
