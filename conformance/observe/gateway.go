package observe

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/check"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// protocols are the stream grammars of the endpoints (section 6).
var protocols = map[string]catalog.Protocol{
	endpointChat:        catalog.ProtocolChat,
	endpointMessages:    catalog.ProtocolMessages,
	endpointGenerations: catalog.ProtocolImageGeneration,
	endpointEdits:       catalog.ProtocolImageEdit,
}

// gatewayCase is the case the catalog would have written for an observed
// request: sent as it was, and expecting what the spec states for it.
// The check stage then applies every rule of the answer's kind (schemas,
// model used, text, max_tokens, images against n, size and
// output_format), as it does in a run. o is the answer the request is
// owed when it breaks a rule whose answer the spec states (a negative
// case's); otherwise a success is expected (a verified case's), and a
// stream when the request asks for one.
func (v verifiedForms) gatewayCase(q *Request, o *owed, feature string) *catalog.Case {
	cs := &catalog.Case{Feature: feature, Key: catalog.KeyKind(q.Key),
		Request: catalog.Request{Method: q.Method, Path: q.Endpoint}}
	if q.Multipart() {
		for _, p := range q.Parts {
			f := catalog.FormField{Name: p.Name, Value: p.Value}
			if isFile(p) {
				f = catalog.FormField{Name: p.Name, File: p.Filename}
			}
			cs.Request.Multipart = append(cs.Request.Multipart, f)
		}
	} else if q.Body != nil {
		cs.Request.JSON = q.Body
	}
	if o != nil {
		cs.Tier, cs.Refs, cs.Spec = cmp.Or(o.tier, vocab.TierNegative), catalog.SpecRefs{catalog.SpecRef(o.row)}, o.row
		cs.Expect.Status, cs.Expect.StatusIn = o.status, o.in
		return cs
	}
	cs.Tier, cs.Expect.Status = vocab.TierVerified, 200
	if q.text("stream") == "false" || q.Endpoint == endpointMessages && q.textBlocks() {
		// The rows show stream omitted (JSON) and true (SSE), and a
		// message's content as a string (an array only for the
		// alternative model's image). Stream false and content as text
		// blocks ask for nothing more, but no row shows them: their
		// answers are owed at the strict tier, as the run's stream-false
		// and text-block cases owe them (go-openai and LangChain JS send
		// stream false, the Anthropic SDKs' helpers text blocks).
		cs.Tier = vocab.TierStrict
	}
	cs.Refs = slices.Clone(answerRows[q.Endpoint])
	images := transparency(q)
	if p, ok := protocols[q.Endpoint]; ok && q.Streams() {
		sse := &catalog.SSEExpect{Protocol: p}
		switch {
		case p.IsImage():
			cs.Refs = slices.Clone(streamRows[q.Endpoint])
			n, _ := integer(q.text("partial_images"))
			sse.MaxPreviews = &n
			sse.Images = check.ExpectedImages(images, &cs.Request)
		case p == catalog.ProtocolChat:
			sse.MinText = 1 // 6.2: the text is in choices[].delta.content
			cs.Refs = append(cs.Refs, "6.2/delta-content")
		case p == catalog.ProtocolMessages:
			sse.MinText = 1                                                           // 6.3: the text is in delta.text
			sse.StopReason = &catalog.Matcher{OneOf: []any{"end_turn", "max_tokens"}} // 2.4: seen
			cs.Refs = append(cs.Refs, "6.3/delta-text", "6.3/stop-reason")
		}
		cs.Expect.SSE = sse
	} else if q.Endpoint == endpointGenerations || q.Endpoint == endpointEdits {
		images = v.imageEchoes(q, cs, images)
	} else if q.Endpoint == endpointMessages {
		// 2.4: stop_reason "end_turn and max_tokens seen".
		cs.Expect.JSON = map[string]catalog.Matcher{"stop_reason": {OneOf: []any{"end_turn", "max_tokens"}, IfPresent: true}}
		cs.Refs = append(cs.Refs, "2.4/stop-reason")
	} else if q.Endpoint == endpointChat {
		// 2.3: finish_reason "stop seen"; "length" is the bound of
		// max_tokens ending it (the engine's stop at the limit).
		cs.Expect.JSON = map[string]catalog.Matcher{"choices.0.finish_reason": {OneOf: []any{"stop", "length"}, IfPresent: true}}
		cs.Refs = append(cs.Refs, "2.3/finish-reason")
	}
	cs.Expect.Images = images
	cs.Spec = cs.Refs.String()
	return cs
}

// imageEchoes are what a JSON image result owes the request beyond n,
// size and output_format (check.ExpectedImages): the quality asked echoed
// (2.2: "echoes the quality used"; auto may name what it resolved to), and
// where a verified row omits size for the model, the 1254x1254 result
// (4.4, 4.5: "omitted returns a 1254x1254 result").
func (v verifiedForms) imageEchoes(q *Request, cs *catalog.Case, images *catalog.ImageExpect) *catalog.ImageExpect {
	json := map[string]catalog.Matcher{}
	if quality := q.text("quality"); quality != "" && quality != "auto" {
		json["quality"] = catalog.Matcher{Equals: quality, HasEquals: true}
		cs.Refs = append(cs.Refs, "2.2/quality")
	}
	if q.text("size") == "" && v.sizeOmittedVerified(q) {
		json["size"] = catalog.Matcher{Equals: defaultSize, HasEquals: true}
		if images == nil {
			images = &catalog.ImageExpect{}
		}
		images.Size = defaultSize
		cs.Refs = append(cs.Refs, catalog.SpecRef(sizeOmittedRows[q.Endpoint]), "2.2/size")
	}
	if len(json) > 0 {
		cs.Expect.JSON = json
	}
	return images
}

// defaultSize is the size of a result whose request omits it (4.4, 4.5).
const defaultSize = "1254x1254"

var sizeOmittedRows = map[string]string{endpointGenerations: "4.4/size-omitted", endpointEdits: "4.5/size-omitted"}

// sizeOmittedVerified says a verified row omits size for the model q
// names on its endpoint, answered as JSON: gen-image-2's generation (4.4
// is verified for it) and every edit model's (4.5). A request naming no
// model is the default model's, whose size 4.4 does not show.
func (v verifiedForms) sizeOmittedVerified(q *Request) bool {
	spec := v.modelKey(q)
	return spec != "" && slices.ContainsFunc(v.byEndpoint[q.Endpoint], func(f form) bool {
		return f.model == spec && !f.names["size"] && f.names["model"] && f.values["stream"] != "true"
	})
}

// transparency is 4.5's transparent output: a real alpha channel when the
// request asks for a transparent background in png or webp, and its
// prompt asks for one too (the verified row's condition). Nil otherwise:
// n, size and output_format are derived by the check stage itself.
func transparency(q *Request) *catalog.ImageExpect {
	format := q.text("output_format")
	if q.text("background") != "transparent" || (format != "png" && format != "webp") ||
		!strings.Contains(strings.ToLower(q.text("prompt")), "transparent") {
		return nil
	}
	t := catalog.DefaultTransparency
	return &catalog.ImageExpect{Transparent: &t}
}

// answerRows are the rows an answer to each endpoint is judged by, cited
// by a generic check's reason.
var answerRows = map[string]catalog.SpecRefs{
	endpointModels:      {"4.1/returns-list"},
	endpointChat:        {"4.2/stream-omitted", "4.2/stream-true"},
	endpointMessages:    {"4.3/stream-omitted", "4.3/stream-true"},
	endpointGenerations: {"4.4/verified-models"},
	endpointEdits:       {"1/image-interface"},
}

// streamRows are the rows an image stream's answer is judged by.
var streamRows = map[string]catalog.SpecRefs{endpointGenerations: {"4.4/stream"}, endpointEdits: {"4.5/stream"}}

// featureOf is the matrix column of an observed request: the catalog's
// feature for that kind of request.
func featureOf(q *Request) string {
	switch q.Endpoint {
	case endpointModels:
		return "models.list"
	case endpointChat:
		if q.Streams() {
			return "chat.stream"
		}
		return "chat.basic"
	case endpointMessages:
		switch {
		case q.Streams():
			return "messages.stream"
		case q.carriesImage():
			return "messages.image_input"
		}
		return "messages.basic"
	case endpointGenerations:
		switch {
		case q.Streams():
			return "images.generate.stream"
		case q.Model() == "":
			return "images.generate.default_model"
		}
		return "images.generate"
	case endpointEdits:
		return editFeature(q)
	case endpointResponses:
		return "responses.basic"
	}
	return "other"
}

// editFeature is the catalog's edit feature a request exercises.
func editFeature(q *Request) string {
	switch {
	case q.Streams():
		return "images.edit.stream"
	case q.Multipart() && len(q.files("mask")) > 0:
		return "images.edit.multipart_mask"
	case q.Multipart() && q.references() > 1:
		return "images.edit.multipart_two_refs"
	case q.Multipart():
		return "images.edit.multipart"
	case q.Body["mask"] != nil:
		return "images.edit.json_mask"
	case q.references() > 1:
		return "images.edit.json_two_refs"
	}
	for _, img := range q.jsonList("images") {
		if u, _ := img["image_url"].(string); httpsURL(u) {
			return "images.edit.url_ref"
		}
	}
	return "images.edit.json"
}

// carriesImage says a messages request's content holds an image block.
func (q *Request) carriesImage() bool { return imageShape(q.Body) != "" }

// textBlocks says a messages request's content is an array of blocks,
// none of them an image: text as blocks, which 4.3 does not show.
func (q *Request) textBlocks() bool {
	if q.carriesImage() {
		return false
	}
	return slices.ContainsFunc(q.jsonList("messages"), func(m map[string]any) bool {
		blocks, _ := m["content"].([]any)
		return len(blocks) > 0
	})
}

// imageShape is the type of the first content block of a messages body
// that is not text (image, image_url, input_image): the shape of its
// image input, which 4.3 does not show; "" when it carries none.
func imageShape(body any) string {
	m, _ := body.(map[string]any)
	msgs, _ := m["messages"].([]any)
	for _, msg := range msgs {
		mm, _ := msg.(map[string]any)
		blocks, _ := mm["content"].([]any)
		for _, b := range blocks {
			if blk, _ := b.(map[string]any); blk != nil && blk["type"] != "text" {
				return fmt.Sprint(blk["type"])
			}
		}
	}
	return ""
}
