package observe

import (
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
func gatewayCase(q *Request, o *owed, feature string) *catalog.Case {
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
		cs.Tier, cs.Refs, cs.Spec = vocab.TierNegative, catalog.SpecRefs{catalog.SpecRef(o.row)}, o.row
		cs.Expect.Status, cs.Expect.StatusIn = o.status, o.in
		return cs
	}
	cs.Tier, cs.Expect.Status = vocab.TierVerified, 200
	images := transparency(q)
	cs.Expect.Images = images
	if p, ok := protocols[q.Endpoint]; ok && q.Streams() {
		sse := &catalog.SSEExpect{Protocol: p}
		if p.IsImage() {
			n, _ := integer(q.text("partial_images"))
			sse.MaxPreviews = &n
			sse.Images = check.ExpectedImages(images, &cs.Request)
		}
		cs.Expect.SSE = sse
	}
	cs.Refs = answerRows[q.Endpoint]
	cs.Spec = cs.Refs.String()
	return cs
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
	endpointGenerations: {"4.4/stream"},
	endpointEdits:       {"4.5/stream"},
}

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
		if u, _ := img["image_url"].(string); strings.HasPrefix(u, "https://") {
			return "images.edit.url_ref"
		}
	}
	return "images.edit.json"
}

// carriesImage says a messages request's content holds an image block.
func (q *Request) carriesImage() bool {
	for _, m := range q.jsonList("messages") {
		blocks, _ := m["content"].([]any)
		for _, b := range blocks {
			if blk, _ := b.(map[string]any); blk != nil && blk["type"] != "text" {
				return true
			}
		}
	}
	return false
}
