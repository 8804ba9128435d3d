package refgateway

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// chatRequest is the JSON body of 4.2. Fields the spec does not list
// (max_completion_tokens, stream_options) are those of the official clients.
type chatRequest struct {
	Model               *string        `json:"model"`
	Messages            *[]chatMessage `json:"messages"`
	Stream              *bool          `json:"stream"`
	Temperature         *float64       `json:"temperature"`
	MaxTokens           *int           `json:"max_tokens"`
	MaxCompletionTokens *int           `json:"max_completion_tokens"`
	StreamOptions       *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

var chatRoles = map[string]bool{"system": true, "developer": true, "user": true, "assistant": true, "tool": true}

// chatModel serves a chat request let through without a model: the model
// with a completed chat call (1).
var chatModel = model{ID: "gen-5.5", Family: KindText}

// chat answers POST /v1/chat/completions (4.2): the chat completion of 2.3,
// or with stream true the chat stream of 6.2.
func (c *call) chat() {
	var req chatRequest
	if !c.readJSON(&req) {
		return
	}
	// model: required; omitted gives 400 (4.2, 7).
	modelID := ""
	if req.Model != nil {
		modelID = *req.Model
	}
	if modelID == "" {
		if err := c.violation(ruleModelRequired, "model", "you must provide a model parameter"); err != nil {
			c.answerErr(err)
			return
		}
	}
	// messages: required, each with role and content; omitted gives 400 (4.2, 7).
	if req.Messages == nil || len(*req.Messages) == 0 {
		if err := c.violation(ruleMessagesRequired, "messages", "messages is required and must be a non-empty array"); err != nil {
			c.answerErr(err)
			return
		}
		req.Messages = &[]chatMessage{{Role: "user", Content: json.RawMessage(`""`)}}
	}
	prompt := ""
	inputTokens := 0
	for i, m := range *req.Messages {
		if !chatRoles[m.Role] {
			c.failParam(http.StatusBadRequest, fmt.Sprintf("messages[%d].role", i), fmt.Sprintf("invalid role %q", m.Role))
			return
		}
		t, ok := textOf(m.Content)
		if !ok && m.Role != "assistant" {
			c.failParam(http.StatusBadRequest, fmt.Sprintf("messages[%d].content", i), "content must be a string or an array of content parts")
			return
		}
		inputTokens += countWords(t) + 3
		if m.Role == "user" {
			prompt = t
		}
	}
	if t := req.Temperature; t != nil && (*t < 0 || *t > 2) {
		c.failParam(http.StatusBadRequest, "temperature", "temperature must be between 0 and 2")
		return
	}
	// max_tokens: an upper bound on output length (4.2, 8).
	maxTokens := 0
	for _, p := range []*int{req.MaxTokens, req.MaxCompletionTokens} {
		if p != nil {
			if *p < 1 {
				c.failParam(http.StatusBadRequest, "max_tokens", "max_tokens must be at least 1")
				return
			}
			maxTokens = *p
		}
	}
	m := chatModel // also serves a request let through without a known model
	if modelID != "" {
		if found, ok := c.lookupModel(modelID); ok && found.Family == KindText {
			m = found
		} else if err := c.unknownModel(modelID); err != nil {
			c.answerErr(err)
			return
		}
	}
	var contents []json.RawMessage
	for _, msg := range *req.Messages {
		contents = append(contents, msg.Content)
	}
	set := map[string]bool{"max_tokens": req.MaxTokens != nil, "temperature": req.Temperature != nil}
	if err := c.vetText(m, req.Stream, contents, set); err != nil {
		c.answerErr(err)
		return
	}
	c.accept()

	words, cut := c.ans.limit(generate(m.ID, prompt, nil), maxTokens)
	finish := "stop"
	if cut {
		finish = "length"
	}
	id := "chatcmpl-" + randHex(12)
	created := time.Now().Unix()
	output := c.ans.outputTokens(words, maxTokens)
	usage := map[string]any{
		"prompt_tokens": inputTokens, "completion_tokens": output, "total_tokens": inputTokens + output,
		"prompt_tokens_details":     map[string]any{"cached_tokens": 0, "audio_tokens": 0},
		"completion_tokens_details": map[string]any{"reasoning_tokens": 0, "audio_tokens": 0, "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0},
	}
	if !c.ans.streams(c.ep, req.Stream) {
		// The chat completion of 2.3.
		text := strings.Join(words, " ")
		if c.ans.chatText != nil {
			text = c.ans.chatText(text, maxTokens)
		}
		msg := map[string]any{"role": "assistant", "content": text, "refusal": nil, "annotations": []any{}}
		choice := map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": finish}
		c.reply(map[string]any{
			"id": id, "object": "chat.completion", "created": created, "model": m.ID,
			"choices": []any{choice}, "usage": usage, "service_tier": "default", "system_fingerprint": nil,
		})
		return
	}

	// The chat stream of 6.2: text fragments in choices[].delta.content, then
	// data: [DONE].
	includeUsage := req.StreamOptions != nil && req.StreamOptions.IncludeUsage
	chunk := func(delta map[string]any, finish any) map[string]any {
		choice := map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}
		ch := map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": created, "model": m.ID,
			"choices": []any{choice}, "service_tier": "default", "system_fingerprint": nil,
		}
		if includeUsage {
			ch["usage"] = nil
		}
		return ch
	}
	s := c.startStream()
	if !s.send(event{data: chunk(map[string]any{"role": "assistant", "content": "", "refusal": nil}, nil)}) {
		return
	}
	for _, part := range chunks(words) {
		if !s.send(event{data: chunk(map[string]any{"content": part}, nil), cuttable: true}) {
			return
		}
	}
	if !s.send(event{data: chunk(map[string]any{}, finish)}) {
		return
	}
	if includeUsage {
		u := chunk(nil, nil)
		u["choices"] = []any{}
		u["usage"] = usage
		if !s.send(event{data: u}) {
			return
		}
	}
	s.send(event{data: "[DONE]"})
}
