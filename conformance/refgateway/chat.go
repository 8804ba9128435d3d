package refgateway

import (
	"encoding/json"
	"fmt"
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

// modelChat serves a chat request let through without a model: the model
// with a completed chat call (1).
const modelChat = "gen-5.5"

// chat answers POST /v1/chat/completions (4.2): the chat completion of 2.3,
// or with stream true the chat stream of 6.2.
func (c *call) chat() {
	var req chatRequest
	if !c.readJSON(&req) {
		return
	}
	t, err := c.readChat(&req)
	if err != nil {
		c.answerErr(err)
		return
	}
	if !c.acceptText(t, req.Stream, req.MaxTokens != nil, req.Temperature != nil) {
		return
	}
	a := c.newChatReply(t)
	if !c.ans.streams(c.ep, req.Stream) {
		text := strings.Join(a.words, " ")
		if c.ans.chatText != nil {
			text = c.ans.chatText(text, t.maxTokens)
		}
		c.reply(a.completion(text))
		return
	}
	c.streamChat(a, req.StreamOptions != nil && req.StreamOptions.IncludeUsage)
}

// readChat checks a chat request in the order of 4.2 and 7: model and
// messages required, each message, temperature, max_tokens, then the model
// against the key's list.
func (c *call) readChat(req *chatRequest) (*textRequest, error) {
	modelID := deref(req.Model)
	if modelID == "" {
		if err := c.violation(ruleModelRequired, "model", "you must provide a model parameter"); err != nil {
			return nil, err
		}
	}
	msgs, err := c.chatMessages(req.Messages)
	if err != nil {
		return nil, err
	}
	t, err := readChatMessages(msgs)
	if err != nil {
		return nil, err
	}
	if temperatureOutside(req.Temperature, 2) {
		return nil, bad("temperature", "temperature must be between 0 and 2")
	}
	if t.maxTokens, err = chatMaxTokens(req.MaxTokens, req.MaxCompletionTokens); err != nil {
		return nil, err
	}
	if t.model, err = c.chatModelFor(modelID); err != nil {
		return nil, err
	}
	return t, nil
}

// chatMessages are the messages of a chat request: required and non-empty
// (4.2, 7). A request let through without them is served as one empty user
// message.
func (c *call) chatMessages(msgs *[]chatMessage) ([]chatMessage, error) {
	if msgs != nil && len(*msgs) > 0 {
		return *msgs, nil
	}
	if err := c.violation(ruleMessagesRequired, "messages", "messages is required and must be a non-empty array"); err != nil {
		return nil, err
	}
	return []chatMessage{{Role: "user", Content: json.RawMessage(`""`)}}, nil
}

// readChatMessages reads the messages of a chat request: each with a known
// role and, but for an assistant's, a string or content parts (4.2).
func readChatMessages(msgs []chatMessage) (*textRequest, error) {
	t := &textRequest{}
	for i, m := range msgs {
		if !chatRoles[m.Role] {
			return nil, bad(fmt.Sprintf("messages[%d].role", i), "invalid role %q", m.Role)
		}
		text, ok := textOf(m.Content)
		if !ok && m.Role != "assistant" {
			return nil, bad(fmt.Sprintf("messages[%d].content", i), "content must be a string or an array of content parts")
		}
		t.addMessage(m.Role, text, m.Content)
	}
	return t, nil
}

// chatMaxTokens is the upper bound on output length (4.2, 8): max_tokens,
// or max_completion_tokens (the official clients' name), which wins when
// both are set; 0 when neither is.
func chatMaxTokens(maxTokens, maxCompletionTokens *int) (int, error) {
	bound := 0
	for _, p := range []*int{maxTokens, maxCompletionTokens} {
		if p == nil {
			continue
		}
		if *p < 1 {
			return 0, bad("max_tokens", "max_tokens must be at least 1")
		}
		bound = *p
	}
	return bound, nil
}

// chatModelFor is the model serving a chat request for model id: a text
// model of the key's list, or modelChat for a request let through without a
// model or with an unknown one.
func (c *call) chatModelFor(id string) (model, error) {
	if id == "" {
		return c.g.specModel(KindText, modelChat), nil
	}
	if found, ok := c.lookupModel(id); ok && found.Family == KindText {
		return found, nil
	}
	if err := c.unknownModel(id); err != nil {
		return model{}, err
	}
	return c.g.specModel(KindText, modelChat), nil
}

// chatReply is the answer to a valid chat request: the chat completion of
// 2.3, or the chat stream of 6.2.
type chatReply struct {
	id      string
	created int64
	model   string
	words   []string
	finish  string // finish_reason: stop, or length when max_tokens cut the words
	usage   map[string]any
}

func (c *call) newChatReply(t *textRequest) *chatReply {
	words, cut, output := c.generateText(t)
	finish := "stop"
	if cut {
		finish = "length"
	}
	return &chatReply{
		id: "chatcmpl-" + randHex(12), created: time.Now().Unix(), model: t.model.ID, words: words, finish: finish,
		usage: map[string]any{
			"prompt_tokens": t.inputTokens, "completion_tokens": output, "total_tokens": t.inputTokens + output,
			"prompt_tokens_details":     map[string]any{"cached_tokens": 0, "audio_tokens": 0},
			"completion_tokens_details": map[string]any{"reasoning_tokens": 0, "audio_tokens": 0, "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0},
		},
	}
}

// completion is the chat completion of 2.3, with text as its message.
func (a *chatReply) completion(text string) map[string]any {
	msg := map[string]any{"role": "assistant", "content": text, "refusal": nil, "annotations": []any{}}
	choice := map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": a.finish}
	return map[string]any{
		"id": a.id, "object": "chat.completion", "created": a.created, "model": a.model,
		"choices": []any{choice}, "usage": a.usage, "service_tier": "default", "system_fingerprint": nil,
	}
}

// chunk is one chunk of the chat stream, its one choice carrying delta and
// finish; with includeUsage (stream_options.include_usage) it has a null
// usage.
func (a *chatReply) chunk(delta map[string]any, finish any, includeUsage bool) map[string]any {
	choice := map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}
	ch := map[string]any{
		"id": a.id, "object": "chat.completion.chunk", "created": a.created, "model": a.model,
		"choices": []any{choice}, "service_tier": "default", "system_fingerprint": nil,
	}
	if includeUsage {
		ch["usage"] = nil
	}
	return ch
}

// streamChat sends the chat stream of 6.2: text fragments in
// choices[].delta.content, with includeUsage a chunk carrying the usage,
// then data: [DONE].
func (c *call) streamChat(a *chatReply, includeUsage bool) {
	chunk := func(delta map[string]any, finish any) map[string]any { return a.chunk(delta, finish, includeUsage) }
	s := c.startStream()
	defer s.end()
	if !s.send(event{data: chunk(map[string]any{"role": "assistant", "content": "", "refusal": nil}, nil)}) {
		return
	}
	for _, part := range chunks(a.words) {
		if !s.send(event{data: chunk(map[string]any{"content": part}, nil), cuttable: true}) {
			return
		}
	}
	if !s.send(event{data: chunk(map[string]any{}, a.finish)}) {
		return
	}
	if includeUsage {
		u := chunk(nil, nil)
		u["choices"] = []any{}
		u["usage"] = a.usage
		if !s.send(event{data: u}) {
			return
		}
	}
	s.send(event{data: "[DONE]"})
}
