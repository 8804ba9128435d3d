package check

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/imagecheck"
	"github.com/gwconform/gwconform/conformance/modelid"
)

// What the spec states for every JSON answer of a kind (2.1–2.4) holds in
// every case that receives one, not only in the case written for it: the
// engine knows the kind from the endpoint and applies its rules itself, so
// a case file states only what is particular to it.

// Kinds of success JSON answer, named by their schema (schemas/).
const (
	kindModelList      = "model_list"
	kindChatCompletion = "chat_completion"
	kindMessage        = "message"
	kindImageResult    = "image_result"
)

// kindOfPath is the resource a success JSON answer on each endpoint is
// (4.1–4.5 "Returns:"). The Responses interface is not shown (4.6): its
// cases state their own expectations.
var kindOfPath = map[string]string{
	"/v1/models":             kindModelList,
	"/v1/chat/completions":   kindChatCompletion,
	"/v1/messages":           kindMessage,
	"/v1/images/generations": kindImageResult,
	"/v1/images/edits":       kindImageResult,
}

// runesPerToken bounds the characters a token of English prose stands for
// on average, when the text itself must show the bound (2.3 shows no
// usage): every text model's tokenizer averages about 4 characters a
// token on English, and no legal English answer reaches twice that over
// hundreds of tokens; a gateway that applied three times the bound
// (about 12 characters a token of the asked budget) is caught.
const runesPerToken = 8

// checkKind applies the rules of the answer's kind that read the request or
// the whole body: the model used (2.3, 2.4), the generated text (2.3, 2.4)
// and max_tokens as an upper bound on its length (4.2, 4.3, 8). The schema
// and the image checks are applied by check.
func (c *checker) checkKind(kind string, body []byte) {
	if kind != kindChatCompletion && kind != kindMessage {
		return
	}
	if got := gjson.GetBytes(body, "model"); got.Exists() && c.model != "" && (got.Type != gjson.String || !c.usedNames(got.Str)) {
		c.fail("json", "model", c.model+" ("+modelid.Spellings+")", got.Raw,
			"the model used is not the model requested (spec 2.3, 2.4: model used)")
	}
	c.checkGeneratedText(kind, body)
	maxTokens, ok := c.maxTokens()
	switch {
	case !ok:
	case kind == kindMessage:
		c.checkOutputTokens(body, maxTokens, "usage.output_tokens")
		c.checkStopAtBound(body, maxTokens)
	default:
		c.checkOutputTokens(body, maxTokens, "usage.completion_tokens")
		c.checkTextLength(body, maxTokens)
	}
}

// checkGeneratedText: an answer carries generated text (2.3, 2.4), except
// an empty one cut by the max_tokens the request sent (a reasoning model
// may spend the whole budget before it writes): the spec demands a
// string, and the limit was reached. A chat completion without a choice
// has none.
func (c *checker) checkGeneratedText(kind string, body []byte) {
	if kind == kindChatCompletion && gjson.GetBytes(body, "choices.#").Int() == 0 && gjson.GetBytes(body, "choices").IsArray() {
		c.fail("json", "choices", "a choice with generated text", "[]", "the chat completion has no choice (spec 2.3: choices[].message.content, generated text)")
		return
	}
	text := generatedText(body)
	if !text.Exists() || text.Str != "" || c.stoppedAtLimit(kind, body) {
		return
	}
	where, message := "content", "the message has no text: its text blocks joined are empty (spec 2.4: read text from blocks whose type is text and join their text)"
	if kind == kindChatCompletion {
		where, message = "choices.0.message.content", "the chat completion has no text (spec 2.3: generated text)"
	}
	c.fail("json", where, "generated text", text.Raw, "%s", message)
}

// stoppedAtLimit reports whether the answer says the max_tokens the
// request sent ended it: a chat choice's finish_reason "length", a
// message's stop_reason "max_tokens" (2.4, 8).
func (c *checker) stoppedAtLimit(kind string, body []byte) bool {
	if _, sent := c.maxTokens(); !sent {
		return false
	}
	if kind == kindChatCompletion {
		return gjson.GetBytes(body, "choices.0.finish_reason").Str == "length"
	}
	return gjson.GetBytes(body, "stop_reason").Str == "max_tokens"
}

// checkOutputTokens bounds the output tokens an answer reports by
// max_tokens (4.2: "upper bound on output length"): a message's
// usage.output_tokens, which 2.4 shows, and a chat completion's
// usage.completion_tokens, which 2.3 does not demand, but which must not
// contradict the bound when it is given.
func (c *checker) checkOutputTokens(body []byte, maxTokens int, path string) {
	if out := gjson.GetBytes(body, path); out.Type == gjson.Number && out.Num > float64(maxTokens) {
		c.fail("json", path, fmt.Sprintf("<= %d (max_tokens)", maxTokens), out.Raw,
			"more output tokens than max_tokens (spec 4.2/max-tokens, 8/max-tokens-256: max_tokens is an upper bound on output length)")
	}
}

// checkStopAtBound: a message that says the max_tokens sent ended it
// (stop_reason max_tokens) used the whole budget (8: "a 1024-token output
// ended with stop_reason max_tokens"), so its usage.output_tokens, which
// 2.4 shows, is max_tokens.
func (c *checker) checkStopAtBound(body []byte, maxTokens int) {
	if out := gjson.GetBytes(body, "usage.output_tokens"); c.stoppedAtLimit(kindMessage, body) && out.Type == gjson.Number && out.Num < float64(maxTokens) {
		c.fail("json", "usage.output_tokens", fmt.Sprintf("%d (max_tokens: the stop_reason says the bound ended it)", maxTokens), out.Raw,
			"stop_reason max_tokens, but fewer output tokens than max_tokens (spec 8/max-tokens-1024-alt: the output ended with stop_reason max_tokens at the bound)")
	}
}

// checkTextLength bounds each choice's text by max_tokens: 2.3 shows no
// usage (its bound is strict, in the case that asks), so the text itself
// must fit.
func (c *checker) checkTextLength(body []byte, maxTokens int) {
	for i, choice := range gjson.GetBytes(body, "choices").Array() {
		content := choice.Get("message.content")
		if n := utf8.RuneCountInString(content.Str); content.Type == gjson.String && n > runesPerToken*maxTokens {
			c.fail("json", fmt.Sprintf("choices.%d.message.content", i), fmt.Sprintf("at most %d characters (%d per token of max_tokens %d)", runesPerToken*maxTokens, runesPerToken, maxTokens),
				fmt.Sprintf("%d characters", n), "the text is longer than max_tokens allows (spec 4.2/max-tokens: max_tokens is an upper bound on output length)")
		}
	}
}

// maxTokens is the request's max_tokens, when it sends a positive integer.
func (c *checker) maxTokens() (int, bool) {
	if c.request == nil {
		return 0, false
	}
	n, err := strconv.Atoi(c.request.ParamText("max_tokens"))
	return n, err == nil && n > 0
}

// generatedText is the text a client reads from a chat completion or a
// message (catalog.PathText), as a JSON string value; it does not exist
// when the body holds no place for text (no content array, no
// choices[0].message.content string).
func generatedText(body []byte) gjson.Result {
	var text string
	switch content := gjson.GetBytes(body, "content"); {
	case content.IsArray():
		// 2.4: "read text from blocks whose type is text and join their text".
		var b strings.Builder
		for _, blk := range content.Array() {
			if blk.Get("type").Str == "text" {
				b.WriteString(blk.Get("text").Str)
			}
		}
		text = b.String()
	default:
		c := gjson.GetBytes(body, "choices.0.message.content")
		if c.Type != gjson.String {
			return gjson.Result{}
		}
		text = c.Str
	}
	raw, _ := json.Marshal(text) // a string always marshals
	return gjson.ParseBytes(raw)
}

// ExpectedImages is a case's image expectation completed from the request
// (the judge of observed traffic derives its own from the request alone):
// every image result holds n images (default 1: 4.4, 4.5), decoded in the
// requested output_format (2.2) and of the requested size (2.2: `size` is
// the size of the result). What the case states itself wins; a size of
// auto, or one omitted, is not derived (the spec verifies the omitted
// 1254x1254 for named cases only, which state it).
func ExpectedImages(exp *catalog.ImageExpect, r *catalog.Request) *catalog.ImageExpect {
	var out catalog.ImageExpect
	if exp != nil {
		out = *exp
	}
	if r == nil {
		return &out
	}
	if out.Count == 0 {
		out.Count = 1
		if s := r.ParamText("n"); s != "" {
			out.Count = 0 // not an integer of at least 1: nothing to count against
			if n, err := strconv.Atoi(s); err == nil && n >= 1 {
				out.Count = n
			}
		}
	}
	if f := r.ParamText("output_format"); out.Format == "" && slices.Contains(catalog.ImageFormats, f) {
		out.Format = f
	}
	if s := r.ParamText("size"); out.Size == "" && s != "auto" {
		if _, _, err := imagecheck.ParseSize(s); err == nil {
			out.Size = s
		}
	}
	return &out
}

// refusedInBody: a refusal whose status the spec does not show (5.2, a
// case's status_in) may come as a success whose body a client must treat as
// failure (2.2, 7): an error member, or on the image endpoints an empty data
// list. It is a refusal as good as a 4xx.
func refusedInBody(cs *catalog.Case, body []byte) bool {
	if cs.Expect.StatusIn == nil || !json.Valid(body) {
		return false
	}
	if e := gjson.GetBytes(body, "error"); e.Exists() && e.Type != gjson.Null {
		return true
	}
	d := gjson.GetBytes(body, "data")
	return kindOfPath[cs.Request.Path] == kindImageResult && d.IsArray() && len(d.Array()) == 0
}
