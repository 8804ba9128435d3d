package refgateway

import (
	"encoding/json"
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
	prompt, maxTokens, err := readResponsesRequest(&req)
	if err != nil {
		c.answerErr(err)
		return
	}
	m, found := c.lookupModel(*req.Model)
	if !found || m.Family != KindText {
		if err := c.unknownModel(*req.Model); err != nil {
			c.answerErr(err)
			return
		}
		m = c.g.specModel(KindText, modelChat) // a fault let the unknown model through: the default text model serves it, as on chat
	}
	c.accept()

	a := c.newResponsesReply(m, prompt, maxTokens)
	if req.Stream == nil || !*req.Stream {
		body := a.response(a.finalStatus(), a.finalOutput(), a.usage)
		body["output_text"] = a.text
		c.reply(body)
		return
	}
	c.streamResponse(a)
}

// readResponsesRequest checks a Responses request: model and input
// required, max_output_tokens at least 16. It returns the last user text
// and the bound on output length (0: none).
func readResponsesRequest(req *responsesRequest) (prompt string, maxTokens int, err error) {
	if req.Model == nil || *req.Model == "" {
		return "", 0, bad("model", "you must provide a model parameter")
	}
	prompt, ok := responsesInput(req.Input)
	if !ok {
		return "", 0, bad("input", "input must be a string or an array of input messages")
	}
	if req.MaxOutputTokens != nil {
		if *req.MaxOutputTokens < 16 {
			return "", 0, bad("max_output_tokens", "max_output_tokens must be at least 16")
		}
		maxTokens = *req.MaxOutputTokens
	}
	return prompt, maxTokens, nil
}

// responsesReply is the answer to a valid Responses request: a response
// object with one output message, or the stream of events building it.
type responsesReply struct {
	respID, itemID string
	created        int64
	model          string
	words          []string
	text           string
	cut            bool // max_output_tokens cut the words: the response is incomplete
	usage          map[string]any
}

func (c *call) newResponsesReply(m model, prompt string, maxTokens int) *responsesReply {
	words, cut := c.ans.limit(generate(m.Spec, prompt, nil), maxTokens)
	inTok := countWords(prompt) + 3
	return &responsesReply{
		respID: "resp_" + randHex(12), itemID: "msg_" + randHex(12), created: time.Now().Unix(),
		model: m.ID, words: words, text: strings.Join(words, " "), cut: cut,
		usage: map[string]any{
			"input_tokens": inTok, "output_tokens": len(words), "total_tokens": inTok + len(words),
			"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
		},
	}
}

// outputTextPart is an output_text content part with text t.
func outputTextPart(t string) map[string]any {
	return map[string]any{"type": "output_text", "text": t, "annotations": []any{}, "logprobs": []any{}}
}

// item is the output message with its status and content.
func (a *responsesReply) item(status string, content []any) map[string]any {
	return map[string]any{"id": a.itemID, "type": "message", "status": status, "role": "assistant", "content": content}
}

// response is the response object with its status, output and usage.
func (a *responsesReply) response(status string, output []any, usage any) map[string]any {
	r := map[string]any{
		"id": a.respID, "object": "response", "created_at": a.created, "status": status, "model": a.model,
		"output": output, "usage": usage, "error": nil, "incomplete_details": nil,
		"parallel_tool_calls": true, "tool_choice": "auto", "tools": []any{}, "text": map[string]any{"format": map[string]any{"type": "text"}},
	}
	if status == "incomplete" {
		r["incomplete_details"] = map[string]any{"reason": "max_output_tokens"}
	}
	return r
}

// finalStatus is the status of the finished response: incomplete when
// max_output_tokens cut the text.
func (a *responsesReply) finalStatus() string {
	if a.cut {
		return "incomplete"
	}
	return "completed"
}

// finalOutput is the output of the finished response: the completed
// message with the whole text.
func (a *responsesReply) finalOutput() []any {
	return []any{a.item("completed", []any{outputTextPart(a.text)})}
}

// streamResponse sends the Responses stream: the response created and in
// progress, the message and its part added, text deltas, the text, part and
// message done, then the finished response.
func (c *call) streamResponse(a *responsesReply) {
	s := c.startStream()
	defer s.end()
	seq := 0
	ev := func(typ string, fields map[string]any) bool {
		fields["type"] = typ
		fields["sequence_number"] = seq
		seq++
		return s.send(event{name: typ, data: fields, cuttable: typ == "response.output_text.delta"})
	}
	if !ev("response.created", map[string]any{"response": a.response("in_progress", []any{}, nil)}) ||
		!ev("response.in_progress", map[string]any{"response": a.response("in_progress", []any{}, nil)}) ||
		!ev("response.output_item.added", map[string]any{"output_index": 0, "item": a.item("in_progress", []any{})}) ||
		!ev("response.content_part.added", map[string]any{"item_id": a.itemID, "output_index": 0, "content_index": 0, "part": outputTextPart("")}) {
		return
	}
	for _, p := range chunks(a.words) {
		if !ev("response.output_text.delta", map[string]any{"item_id": a.itemID, "output_index": 0, "content_index": 0, "delta": p, "logprobs": []any{}}) {
			return
		}
	}
	if !ev("response.output_text.done", map[string]any{"item_id": a.itemID, "output_index": 0, "content_index": 0, "text": a.text, "logprobs": []any{}}) ||
		!ev("response.content_part.done", map[string]any{"item_id": a.itemID, "output_index": 0, "content_index": 0, "part": outputTextPart(a.text)}) ||
		!ev("response.output_item.done", map[string]any{"output_index": 0, "item": a.item("completed", []any{outputTextPart(a.text)})}) {
		return
	}
	// The last event is named after the final status: response.completed
	// or response.incomplete.
	status := a.finalStatus()
	ev("response."+status, map[string]any{"response": a.response(status, a.finalOutput(), a.usage)})
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
