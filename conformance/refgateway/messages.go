package refgateway

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gwconform/gwconform/conformance/refgateway/imagery"
)

type anthropicMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// messagesRequest is the JSON body of 4.3, with the fields of the official
// clients the spec does not list (system, temperature).
type messagesRequest struct {
	Model       *string             `json:"model"`
	MaxTokens   *int                `json:"max_tokens"`
	Messages    *[]anthropicMessage `json:"messages"`
	Stream      *bool               `json:"stream"`
	System      json.RawMessage     `json:"system"`
	Temperature *float64            `json:"temperature"`
}

type contentBlock struct {
	Type   string `json:"type"`
	Text   string `json:"text"`
	Source *struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
	} `json:"source"`
}

// messages answers POST /v1/messages (4.3) for the messages models and the
// alternative text model (5 rule 3): the message of 2.4, or with stream true
// the messages stream of 6.3.
func (c *call) messages() {
	var req messagesRequest
	if !c.readJSON(&req) {
		return
	}
	t, err := c.readMessages(&req)
	if err != nil {
		c.answerErr(err)
		return
	}
	if !c.acceptText(t, req.Stream, req.MaxTokens != nil, req.Temperature != nil) {
		return
	}
	a := c.newMessageReply(t)
	if !c.ans.streams(c.ep, req.Stream) {
		c.reply(a.message())
		return
	}
	c.streamMessage(a)
}

// readMessages checks a messages request in the order of 4.3 and 7: model,
// max_tokens, messages, temperature, then each message. The system prompt
// counts towards the input tokens.
func (c *call) readMessages(req *messagesRequest) (*textRequest, error) {
	m, err := c.messagesModel(deref(req.Model))
	if err != nil {
		return nil, err
	}
	maxTokens, err := c.messagesMaxTokens(req.MaxTokens, m)
	if err != nil {
		return nil, err
	}
	// messages: "yes in practice" (4.3).
	if req.Messages == nil || len(*req.Messages) == 0 {
		return nil, bad("messages", "messages: field required (at least one message)")
	}
	if temperatureOutside(req.Temperature, 1) {
		return nil, bad("temperature", "temperature: must be between 0 and 1")
	}
	t, err := readAnthropicMessages(*req.Messages, m.Family == KindAlt)
	if err != nil {
		return nil, err
	}
	if sys, ok := textOf(req.System); ok {
		t.inputTokens += countWords(sys)
	}
	t.model, t.maxTokens = m, maxTokens
	return t, nil
}

// messagesModel is the model serving a messages request for model id, the
// full model identifier: omitted gives 400, a retired or unknown one 404
// (4.3, 7). A request a fault lets through without a known model is served
// by messagesFallback.
func (c *call) messagesModel(id string) (model, error) {
	if id == "" {
		if err := c.violation(ruleModelRequired, "model", "model: field required"); err != nil {
			return model{}, err
		}
		return c.messagesFallback(), nil
	}
	if found, ok := c.lookupModel(id); ok && servedOnMessages(found) {
		return found, nil
	}
	if err := c.unknownModel(id); err != nil {
		return model{}, err
	}
	return c.messagesFallback(), nil
}

// modelMessages is the model messagesFallback falls back to.
const modelMessages = "msg-sonnet-5"

// messagesFallback serves a messages request let through without a known
// model: as the key's first model would be, or as modelMessages when that
// is not served on /v1/messages.
func (c *call) messagesFallback() model {
	var m model
	if list := c.g.lists[c.kind]; len(list) > 0 {
		m = list[0]
	}
	if !servedOnMessages(m) {
		m = c.g.specModel(KindMessages, modelMessages)
	}
	return m
}

// servedOnMessages reports whether /v1/messages serves m: the messages
// models and the alternative text model.
func servedOnMessages(m model) bool { return m.Family == KindMessages || m.Family == KindAlt }

// messagesMaxTokens is max_tokens of a messages request, at least 1 when
// set and required for the alternative text model (4.3); 0 when it is not
// set.
func (c *call) messagesMaxTokens(p *int, m model) (int, error) {
	if p != nil {
		if *p < 1 {
			return 0, bad("max_tokens", "max_tokens: must be greater than or equal to 1")
		}
		return *p, nil
	}
	if m.Family == KindAlt {
		if err := c.violation(ruleAltMaxTokens, "max_tokens", "max_tokens: field required"); err != nil {
			return 0, err
		}
	}
	return 0, nil
}

// readAnthropicMessages reads the messages of a messages request: each a
// user or assistant message whose content is a string or an array of
// blocks; alt (the alternative text model) accepts a single image.
func readAnthropicMessages(msgs []anthropicMessage, alt bool) (*textRequest, error) {
	t := &textRequest{}
	for i, msg := range msgs {
		if msg.Role != "user" && msg.Role != "assistant" {
			return nil, bad(fmt.Sprintf("messages.%d.role", i), "messages.%d.role: unexpected role %q", i, msg.Role)
		}
		text, err := t.readContent(i, msg, alt)
		if err != nil {
			return nil, err
		}
		t.addMessage(msg.Role, text, msg.Content)
	}
	return t, nil
}

// readContent reads the content of message i: a string, or an array of
// text and image blocks whose texts are joined.
func (t *textRequest) readContent(i int, msg anthropicMessage, alt bool) (string, error) {
	var s string
	if json.Unmarshal(msg.Content, &s) == nil {
		return s, nil
	}
	var blocks []contentBlock
	if err := json.Unmarshal(msg.Content, &blocks); err != nil || len(blocks) == 0 {
		return "", bad(fmt.Sprintf("messages.%d.content", i), "messages.%d.content: must be a string or a non-empty array of content blocks", i)
	}
	var texts []string
	for j, b := range blocks {
		switch b.Type {
		case "text":
			texts = append(texts, b.Text)
		case "image":
			if err := t.readImageBlock(i, j, b, msg.Role, alt); err != nil {
				return "", err
			}
		default:
			return "", bad(fmt.Sprintf("messages.%d.content.%d.type", i, j), "messages.%d.content.%d.type: unsupported block type %q", i, j, b.Type)
		}
	}
	return strings.Join(texts, " "), nil
}

// readImageBlock reads image block j of message i: it counts towards the
// input tokens and, in a user message, the answer starts by describing it.
func (t *textRequest) readImageBlock(i, j int, b contentBlock, role string, alt bool) error {
	t.images++
	if alt && t.images > 1 {
		return bad("messages", "this model accepts a single image per request")
	}
	w, h, tokens, errMsg := decodeImageBlock(b)
	if errMsg != "" {
		return bad(fmt.Sprintf("messages.%d.content.%d.source", i, j), "messages.%d.content.%d: %s", i, j, errMsg)
	}
	t.inputTokens += tokens
	if role == "user" {
		t.prefix = strings.Fields(fmt.Sprintf("The image is %dx%d pixels.", w, h))
	}
	return nil
}

// messageReply is the answer to a valid messages request: the message of
// 2.4, or the messages stream of 6.3.
type messageReply struct {
	id, model                 string
	words                     []string
	stop                      string // stop_reason: end_turn, or max_tokens when max_tokens cut the words
	inputTokens, outputTokens int
}

func (c *call) newMessageReply(t *textRequest) *messageReply {
	words, cut, output := c.generateText(t)
	stop := "end_turn"
	if cut {
		stop = "max_tokens"
	}
	return &messageReply{id: "msg_" + randHex(12), model: t.model.ID, words: words, stop: stop, inputTokens: t.inputTokens, outputTokens: output}
}

// usage is the usage object with output output tokens.
func (a *messageReply) usage(output int) map[string]any {
	return map[string]any{
		"input_tokens": a.inputTokens, "output_tokens": output,
		"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "service_tier": "standard",
	}
}

// message is the message of 2.4.
func (a *messageReply) message() map[string]any {
	return map[string]any{
		"id": a.id, "type": "message", "role": "assistant", "model": a.model,
		"content":     []any{map[string]any{"type": "text", "text": strings.Join(a.words, " ")}},
		"stop_reason": a.stop, "stop_sequence": nil, "usage": a.usage(a.outputTokens),
	}
}

// streamMessage sends the messages stream of 6.3: message_start,
// content-block events with the text in delta.text, message_delta with the
// stop_reason, message_stop.
func (c *call) streamMessage(a *messageReply) {
	s := c.startStream()
	defer s.end()
	send := func(typ string, fields map[string]any, cuttable bool) bool {
		fields["type"] = typ
		return s.send(event{name: typ, data: fields, cuttable: cuttable})
	}
	start := map[string]any{"message": map[string]any{
		"id": a.id, "type": "message", "role": "assistant", "model": a.model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": a.usage(1),
	}}
	if !send("message_start", start, false) ||
		!send("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{"type": "text", "text": ""}}, false) ||
		!send("ping", map[string]any{}, false) {
		return
	}
	for _, part := range chunks(a.words) {
		if !send("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "text_delta", "text": part}}, true) {
			return
		}
	}
	du := a.usage(a.outputTokens)
	delete(du, "service_tier")
	if !send("content_block_stop", map[string]any{"index": 0}, false) ||
		!send("message_delta", map[string]any{"delta": map[string]any{"stop_reason": a.stop, "stop_sequence": nil}, "usage": du}, false) {
		return
	}
	send("message_stop", map[string]any{}, false)
}

// decodeImageBlock checks an image block of a message (4.3: a single base64
// image for the alternative text model) and returns its size and an
// input-token estimate, or an error message.
func decodeImageBlock(b contentBlock) (w, h, tokens int, errMsg string) {
	if b.Source == nil {
		return 0, 0, 0, "image block without source"
	}
	if b.Source.Type != "base64" {
		return 0, 0, 0, fmt.Sprintf("image source type %q is not supported (use base64)", b.Source.Type)
	}
	want := map[string]string{"image/png": imagery.FormatPNG, "image/jpeg": imagery.FormatJPEG, "image/webp": imagery.FormatWebP}[b.Source.MediaType]
	if want == "" {
		return 0, 0, 0, fmt.Sprintf("media_type %q is not supported (image/png, image/jpeg, image/webp)", b.Source.MediaType)
	}
	raw, err := base64.StdEncoding.DecodeString(b.Source.Data)
	if err != nil {
		return 0, 0, 0, "image data is not valid base64"
	}
	if got := imagery.Sniff(raw); got != want {
		return 0, 0, 0, fmt.Sprintf("media_type %s does not match the image data", b.Source.MediaType)
	}
	img, err := decodeInput(raw)
	if err != nil {
		return 0, 0, 0, err.Error()
	}
	sz := img.Bounds().Size()
	return sz.X, sz.Y, max(1, sz.X*sz.Y/750), ""
}
