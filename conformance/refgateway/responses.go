package refgateway

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

type responsesRequest struct {
	Model           *string         `json:"model"`
	Input           json.RawMessage `json:"input"`
	Instructions    *string         `json:"instructions"`
	Stream          *bool           `json:"stream"`
	MaxOutputTokens *int            `json:"max_output_tokens"`
	Temperature     *float64        `json:"temperature"`
}

// responses answers POST /v1/responses. The spec names a Responses text
// interface for the Responses models but shows neither its path, payload nor
// response (1, 4.6), so its cases are explore tier; this one follows the
// OpenAI Responses API.
func (c *call) responses() {
	var req responsesRequest
	if !c.readJSON(&req) {
		return
	}
	if req.Model == nil || *req.Model == "" {
		c.failParam(http.StatusBadRequest, "model", "you must provide a model parameter")
		return
	}
	prompt, ok := responsesInput(req.Input)
	if !ok {
		c.failParam(http.StatusBadRequest, "input", "input must be a string or an array of input messages")
		return
	}
	maxTokens := 0
	if req.MaxOutputTokens != nil {
		if *req.MaxOutputTokens < 16 {
			c.failParam(http.StatusBadRequest, "max_output_tokens", "max_output_tokens must be at least 16")
			return
		}
		maxTokens = *req.MaxOutputTokens
	}
	m, found := c.lookupModel(*req.Model)
	if !found || m.Family != KindText {
		c.answerErr(c.unknownModel(*req.Model))
		return
	}
	c.accept()

	words, cut := c.ans.limit(generate(m.ID, prompt, nil), maxTokens)
	text := strings.Join(words, " ")
	inTok := countWords(prompt) + 3
	respID, itemID := "resp_"+randHex(12), "msg_"+randHex(12)
	created := time.Now().Unix()
	part := func(t string) map[string]any {
		return map[string]any{"type": "output_text", "text": t, "annotations": []any{}, "logprobs": []any{}}
	}
	item := func(status string, content []any) map[string]any {
		return map[string]any{"id": itemID, "type": "message", "status": status, "role": "assistant", "content": content}
	}
	resp := func(status string, output []any, usage any) map[string]any {
		r := map[string]any{
			"id": respID, "object": "response", "created_at": created, "status": status, "model": m.ID,
			"output": output, "usage": usage, "error": nil, "incomplete_details": nil,
			"parallel_tool_calls": true, "tool_choice": "auto", "tools": []any{}, "text": map[string]any{"format": map[string]any{"type": "text"}},
		}
		if status == "incomplete" {
			r["incomplete_details"] = map[string]any{"reason": "max_output_tokens"}
		}
		return r
	}
	usage := map[string]any{
		"input_tokens": inTok, "output_tokens": len(words), "total_tokens": inTok + len(words),
		"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
	}
	final := "completed"
	if cut {
		final = "incomplete"
	}
	done := resp(final, []any{item("completed", []any{part(text)})}, usage)
	if req.Stream == nil || !*req.Stream {
		done["output_text"] = text
		c.reply(done)
		return
	}
	s := c.startStream()
	seq := 0
	ev := func(typ string, fields map[string]any) bool {
		fields["type"] = typ
		fields["sequence_number"] = seq
		seq++
		return s.send(event{name: typ, data: fields, cuttable: typ == "response.output_text.delta"})
	}
	if !ev("response.created", map[string]any{"response": resp("in_progress", []any{}, nil)}) ||
		!ev("response.in_progress", map[string]any{"response": resp("in_progress", []any{}, nil)}) ||
		!ev("response.output_item.added", map[string]any{"output_index": 0, "item": item("in_progress", []any{})}) ||
		!ev("response.content_part.added", map[string]any{"item_id": itemID, "output_index": 0, "content_index": 0, "part": part("")}) {
		return
	}
	for _, p := range chunks(words) {
		if !ev("response.output_text.delta", map[string]any{"item_id": itemID, "output_index": 0, "content_index": 0, "delta": p, "logprobs": []any{}}) {
			return
		}
	}
	if !ev("response.output_text.done", map[string]any{"item_id": itemID, "output_index": 0, "content_index": 0, "text": text, "logprobs": []any{}}) ||
		!ev("response.content_part.done", map[string]any{"item_id": itemID, "output_index": 0, "content_index": 0, "part": part(text)}) ||
		!ev("response.output_item.done", map[string]any{"output_index": 0, "item": item("completed", []any{part(text)})}) {
		return
	}
	typ := "response.completed"
	if cut {
		typ = "response.incomplete"
	}
	ev(typ, map[string]any{"response": done})
}

// responsesInput reads the Responses input: a string, or messages whose
// content is a string or input_text parts. It returns the last user text.
func responsesInput(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var items []chatMessage
	if json.Unmarshal(raw, &items) != nil || len(items) == 0 {
		return "", false
	}
	prompt := ""
	for _, it := range items {
		t, ok := textOf(it.Content)
		if !ok {
			return "", false
		}
		if it.Role == "user" || it.Role == "" {
			prompt = t
		}
	}
	return prompt, true
}
