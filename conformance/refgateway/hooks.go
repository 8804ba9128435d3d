package refgateway

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/gwconform/gwconform/conformance/refgateway/imagery"
)

// Faults reach the gateway at these points only, the methods of this file:
//
//   - routed: a request routed to an endpoint, which a fault may refuse
//     before its handler sees it;
//   - violation: a named validation rule, which a fault may override;
//   - unserved: a model listed for the key, which a fault may answer as
//     unknown;
//   - defaultImageModel: the model serving an image request without model;
//   - accept: a request found valid, whose answer a fault may bend;
//   - reply: a success JSON body, just before it is written;
//   - stream.send (sse.go): each planned stream event;
//   - pictures: each output image, before it is drawn;
//   - vetImageJob: an image request found valid, which a fault may refuse
//     or whose job it may change;
//   - keylessKind: a request without a valid key, which a fault may serve;
//   - vetText: a chat or messages request found valid, which a fault may
//     refuse for the content of a message or an optional parameter set.
//
// Handlers call these and never ask which fault is on; what each fault does
// at its points is declared once, in the table of faults.go.

// hooks are what one fault does at those points. A nil hook does nothing.
type hooks struct {
	// overrides maps each validation rule the fault overrides to the status
	// answered instead of the spec's. http.StatusOK lets the request through:
	// it is served as if it were valid.
	overrides map[rule]int
	// accepted may change how a valid request to ep is answered.
	accepted func(ep endpoint, a *answer)
	// body changes the success JSON body of call c.
	body func(c *call, body map[string]any)
	// event sees each event a handler plans and returns the events to write
	// in its place: none drops it; several write events it held back before.
	event func(s *stream, ev event) []event
	// image changes output image p of job j before it is drawn.
	image func(j *imageJob, p *picture)
	// imageDefault gives the spec id of the model serving an image request
	// to ep that names none, instead of the spec's.
	imageDefault func(ep endpoint) string
	// refuse answers every request routed to ep with an error status and
	// message instead of its handler (status 0: the handler answers), as a
	// gateway without that route, or a relay refusing it, does.
	refuse func(ep endpoint) (status int, msg string)
	// imageJob may refuse a valid image request to ep (the error answers
	// it) or change the job built from it: in is the request as read,
	// files the parts of a multipart form (nil for a JSON body).
	imageJob func(ep endpoint, in *imageRequest, files *formFiles, j *imageJob) error
	// keyless names the key kind a request with a missing or unknown key
	// is served as ("": refused with 401, as 5.1 has it).
	keyless func() string
	// unserved reports whether model m, listed for the key, is answered on
	// ep as an unknown model (404) instead of being served.
	unserved func(ep endpoint, m model) bool
	// content may refuse a valid chat or messages request to ep, served by
	// model m, for the content of one of its messages (the error answers
	// it); stream is the request's stream value.
	content func(ep endpoint, m model, stream bool, content json.RawMessage) error
	// params may refuse a valid chat or messages request to ep for the
	// optional parameters it sets (set[name] true, names as in the JSON
	// body); the error answers it.
	params func(ep endpoint, set map[string]bool) error
}

// endpoint names what a call is served by, for hooks that act on several.
type endpoint int

const (
	epModels      endpoint = iota // GET /v1/models (4.1)
	epChat                        // POST /v1/chat/completions (4.2)
	epMessages                    // POST /v1/messages (4.3)
	epGenerations                 // POST /v1/images/generations (4.4)
	epEdits                       // POST /v1/images/edits (4.5)
	epResponses                   // POST /v1/responses (4.6)
)

// images reports whether ep answers with image results and image streams.
func (ep endpoint) images() bool { return ep == epGenerations || ep == epEdits }

// rule names a rejection the spec states, so that a fault overrides it in
// one place (violation) instead of in each validator that applies it.
type rule int

const (
	ruleModelRequired     rule = iota // chat completions and messages without model (4.2, 4.3, 7)
	ruleMessagesRequired              // chat completions without messages (4.2, 7)
	rulePromptRequired                // image request without prompt (4.5, 7)
	ruleReferenceRequired             // image edit without a reference image (4.5 rule 1, 7)
	ruleNoFileID                      // images[].file_id or mask.file_id (4.5 rule 2, 7)
	ruleFileIDAlone                   // a reference by images[].file_id alone (4.5 rule 2, 7)
	rulePartialImages                 // partial_images outside 0 to 3 (4.5, 7, 8)
	ruleKnownModel                    // messages with a retired or unknown model id (7, 9)
	ruleKnownOtherModel               // chat or images with a retired or unknown model id (9; 7 lists messages only)
	ruleImagePermission               // an image request with a key without image permission (5 rule 2)
	ruleAltMaxTokens                  // messages to the alternative model without max_tokens (4.3)
)

// ruleStatus is the status the spec gives a request that breaks each rule.
var ruleStatus = map[rule]int{
	ruleModelRequired:     http.StatusBadRequest,
	ruleMessagesRequired:  http.StatusBadRequest,
	rulePromptRequired:    http.StatusBadRequest,
	ruleReferenceRequired: http.StatusBadRequest,
	ruleNoFileID:          http.StatusBadRequest,
	ruleFileIDAlone:       http.StatusBadRequest,
	rulePartialImages:     http.StatusBadRequest,
	ruleKnownModel:        http.StatusNotFound,
	ruleKnownOtherModel:   http.StatusNotFound,
	// The spec shows no status for this refusal; 403 is HTTP's "not
	// permitted", and a status the official clients never retry.
	ruleImagePermission: http.StatusForbidden,
	ruleAltMaxTokens:    http.StatusBadRequest,
}

// routed reports whether the request routed to c.ep may reach its handler;
// false when a fault has answered it with an error instead.
func (c *call) routed() bool {
	for _, f := range c.faults {
		if f.refuse == nil {
			continue
		}
		if status, msg := f.refuse(c.ep); status != 0 {
			c.fail(status, msg)
			return false
		}
	}
	return true
}

// violation is the error answering a request that breaks rule r, with the
// spec's status or the one an active fault answers instead. It is nil when
// a fault lets the request through: the validator then carries on with a
// fallback value of its own.
func (c *call) violation(r rule, param, format string, args ...any) error {
	status := ruleStatus[r]
	for _, f := range c.faults {
		if s, ok := f.overrides[r]; ok {
			status = s
		}
	}
	if status == http.StatusOK {
		return nil
	}
	return &errBad{status: status, param: param, msg: fmt.Sprintf(format, args...)}
}

// answer is how the gateway answers a valid request.
type answer struct {
	jsonType   string // Content-Type of a success JSON body (4)
	streamType string // Content-Type of an event stream (6)
	// status is the status of a success JSON body: 200, the success the
	// official clients see.
	status int
	// echoBackground names the background requested in an image result
	// (auto included) instead of the output's (2.2).
	echoBackground bool
	// chatText, when set, changes the text of a chat completion (JSON)
	// after max_tokens has bounded its words.
	chatText func(text string, maxTokens int) string
	// limit applies max_tokens to the generated words and reports whether it
	// cut them (4.2, 4.3, 8).
	limit func(words []string, maxTokens int) ([]string, bool)
	// outputTokens is the output token count usage reports for the words
	// answered under maxTokens (one word is one token).
	outputTokens func(words []string, maxTokens int) int
	// streams reports whether a request to ep with this `stream` value is
	// answered as an event stream: with stream true only (4.2, 4.3, 4.4).
	streams func(ep endpoint, stream *bool) bool
}

// plainAnswer is the answer as the spec has it.
var plainAnswer = answer{
	status:       http.StatusOK,
	jsonType:     "application/json",
	streamType:   "text/event-stream; charset=utf-8",
	limit:        limitWords,
	outputTokens: func(words []string, _ int) int { return len(words) },
	streams:      func(_ endpoint, stream *bool) bool { return deref(stream) },
}

// accept marks the request valid: every handler calls it once validation
// has passed and before it answers. The accepted hooks may bend the answer.
func (c *call) accept() {
	for _, f := range c.faults {
		if f.accepted != nil {
			f.accepted(c.ep, &c.ans)
		}
	}
}

// reply answers a valid request with body (200), after the body hooks.
func (c *call) reply(body map[string]any) {
	for _, f := range c.faults {
		if f.body != nil {
			f.body(c, body)
		}
	}
	c.writeJSON(c.ans.status, body)
}

// unserved reports whether a fault answers model m, listed for the key,
// on this call's endpoint as unknown.
func (c *call) unserved(m model) bool {
	for _, f := range c.faults {
		if f.unserved != nil && f.unserved(c.ep, m) {
			return true
		}
	}
	return false
}

// vetImageJob lets the imageJob hooks refuse or change a valid image job.
func (c *call) vetImageJob(in *imageRequest, files *formFiles, j *imageJob) error {
	for _, f := range c.faults {
		if f.imageJob != nil {
			if err := f.imageJob(c.ep, in, files, j); err != nil {
				return err
			}
		}
	}
	return nil
}

// vetText lets the content and params hooks refuse a valid chat or
// messages request, served by model m: for the content of one of its
// messages, or for the optional parameters it sets.
func (c *call) vetText(m model, stream *bool, msgs []json.RawMessage, set map[string]bool) error {
	streams := deref(stream)
	for _, f := range c.faults {
		if f.params != nil {
			if err := f.params(c.ep, set); err != nil {
				return err
			}
		}
		if f.content == nil {
			continue
		}
		for _, content := range msgs {
			if err := f.content(c.ep, m, streams, content); err != nil {
				return err
			}
		}
	}
	return nil
}

// keylessKind is the key kind a fault serves a request without a valid key
// as; "" when none does.
func (c *call) keylessKind() string {
	for _, f := range c.faults {
		if f.keyless != nil {
			return f.keyless()
		}
	}
	return ""
}

// defaultImageModel is the spec id of the model serving an image request
// that names none: gen-image-2.5-flare (4.4, 4.5), unless a fault names
// another.
func (c *call) defaultImageModel() string {
	id := modelImageFlare
	for _, f := range c.faults {
		if f.imageDefault != nil {
			id = f.imageDefault(c.ep)
		}
	}
	return id
}

// picture is one output image of an image answer, planned before it is
// drawn.
type picture struct {
	index    int  // position among the n requested
	omit     bool // left out of the answer
	previews int  // previews before it in a stream (6.1)
	// previewsCompleted sends its previews as completed events, as if each
	// were a final image of its own.
	previewsCompleted bool
	scene             imagery.Scene // what is drawn; Preview is set per render
	format            string        // how it is encoded
	// damage and garble change the final image after encoding: its bytes,
	// then its base64 text. Previews are sent as drawn.
	damage []func([]byte) []byte
	garble []func(string) string
}

// pictures plans the output images of j, after the image hooks, leaving out
// those a hook omits.
func (c *call) pictures(j *imageJob) []picture {
	var out []picture
	for i := range j.n {
		p := picture{index: i, previews: j.previewCount(i), scene: j.scene(i), format: j.format}
		for _, f := range c.faults {
			if f.image != nil {
				f.image(j, &p)
			}
		}
		if !p.omit {
			out = append(out, p)
		}
	}
	return out
}
