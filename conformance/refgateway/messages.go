package refgateway

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
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
	// model: the full model identifier; omitted gives 400, a retired or
	// unknown one 404 (4.3, 7).
	modelID := ""
	if req.Model != nil {
		modelID = *req.Model
	}
	var m model
	if modelID == "" {
		if err := c.violation(ruleModelRequired, "model", "model: field required"); err != nil {
			c.answerErr(err)
			return
		}
	} else if found, ok := c.lookupModel(modelID); ok && (found.Family == KindMessages || found.Family == KindAlt) {
		m = found
	} else if err := c.unknownModel(modelID); err != nil {
		c.answerErr(err)
		return
	}
	if m.ID == "" {
		// Let through without a known model: served as the key's first
		// model would be.
		if list := c.g.lists[c.kind]; len(list) > 0 {
			m = list[0]
		}
		if m.Family != KindMessages && m.Family != KindAlt {
			m = model{ID: "msg-sonnet-5", Family: KindMessages}
		}
	}
	// max_tokens: required for the alternative text model (4.3).
	maxTokens := 0
	if req.MaxTokens != nil {
		if *req.MaxTokens < 1 {
			c.failParam(http.StatusBadRequest, "max_tokens", "max_tokens: must be greater than or equal to 1")
			return
		}
		maxTokens = *req.MaxTokens
	} else if m.Family == KindAlt {
		if err := c.violation(ruleAltMaxTokens, "max_tokens", "max_tokens: field required"); err != nil {
			c.answerErr(err)
			return
		}
	}
	// messages: "yes in practice" (4.3).
	if req.Messages == nil || len(*req.Messages) == 0 {
		c.failParam(http.StatusBadRequest, "messages", "messages: field required (at least one message)")
		return
	}
	if t := req.Temperature; t != nil && (*t < 0 || *t > 1) {
		c.failParam(http.StatusBadRequest, "temperature", "temperature: must be between 0 and 1")
		return
	}
	// content: a string, or an array of blocks; the alternative text model
	// also accepts a single base64 image (4.3).
	prompt := ""
	inputTokens := 0
	images := 0
	var prefix []string
	for i, msg := range *req.Messages {
		if msg.Role != "user" && msg.Role != "assistant" {
			c.failParam(http.StatusBadRequest, fmt.Sprintf("messages.%d.role", i), fmt.Sprintf("messages.%d.role: unexpected role %q", i, msg.Role))
			return
		}
		var text string
		var s string
		if json.Unmarshal(msg.Content, &s) == nil {
			text = s
		} else {
			var blocks []contentBlock
			if err := json.Unmarshal(msg.Content, &blocks); err != nil || len(blocks) == 0 {
				c.failParam(http.StatusBadRequest, fmt.Sprintf("messages.%d.content", i), fmt.Sprintf("messages.%d.content: must be a string or a non-empty array of content blocks", i))
				return
			}
			var texts []string
			for j, b := range blocks {
				switch b.Type {
				case "text":
					texts = append(texts, b.Text)
				case "image":
					images++
					if m.Family == KindAlt && images > 1 {
						c.failParam(http.StatusBadRequest, "messages", "this model accepts a single image per request")
						return
					}
					w, h, tokens, errMsg := decodeImageBlock(b)
					if errMsg != "" {
						c.failParam(http.StatusBadRequest, fmt.Sprintf("messages.%d.content.%d.source", i, j), fmt.Sprintf("messages.%d.content.%d: %s", i, j, errMsg))
						return
					}
					inputTokens += tokens
					if msg.Role == "user" {
						prefix = strings.Fields(fmt.Sprintf("The image is %dx%d pixels.", w, h))
					}
				default:
					c.failParam(http.StatusBadRequest, fmt.Sprintf("messages.%d.content.%d.type", i, j), fmt.Sprintf("messages.%d.content.%d.type: unsupported block type %q", i, j, b.Type))
					return
				}
			}
			text = strings.Join(texts, " ")
		}
		inputTokens += countWords(text) + 3
		if msg.Role == "user" {
			prompt = text
		}
	}
	if sys, ok := textOf(req.System); ok {
		inputTokens += countWords(sys)
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

	words, cut := c.ans.limit(generate(m.ID, prompt, prefix), maxTokens)
	stop := "end_turn"
	if cut {
		stop = "max_tokens"
	}
	id := "msg_" + randHex(12)
	output := c.ans.outputTokens(words, maxTokens)
	usage := func(n int) map[string]any {
		return map[string]any{
			"input_tokens": inputTokens, "output_tokens": n,
			"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "service_tier": "standard",
		}
	}
	if !c.ans.streams(c.ep, req.Stream) {
		// The message of 2.4.
		c.reply(map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": m.ID,
			"content":     []any{map[string]any{"type": "text", "text": strings.Join(words, " ")}},
			"stop_reason": stop, "stop_sequence": nil, "usage": usage(output),
		})
		return
	}

	// The messages stream of 6.3: message_start, content-block events with
	// the text in delta.text, message_delta with the stop_reason, message_stop.
	s := c.startStream()
	send := func(typ string, fields map[string]any, cuttable bool) bool {
		fields["type"] = typ
		return s.send(event{name: typ, data: fields, cuttable: cuttable})
	}
	start := map[string]any{"message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": m.ID, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": usage(1),
	}}
	if !send("message_start", start, false) ||
		!send("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{"type": "text", "text": ""}}, false) ||
		!send("ping", map[string]any{}, false) {
		return
	}
	for _, part := range chunks(words) {
		if !send("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "text_delta", "text": part}}, true) {
			return
		}
	}
	du := usage(output)
	delete(du, "service_tier")
	if !send("content_block_stop", map[string]any{"index": 0}, false) ||
		!send("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": du}, false) {
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
