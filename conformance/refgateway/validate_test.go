package refgateway

// Validators check one response against the spec and name each broken rule
// by the fault that breaks it. They are the test oracle: with no fault they
// must find nothing, and with fault F exactly {F} where F applies.

import (
	"encoding/json"
	"fmt"
	"image"
	"mime"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"
)

type violations map[string]bool

func (v violations) add(name string) { v[name] = true }

func (v violations) names() []string {
	var out []string
	for k := range v {
		out = append(out, k)
	}
	return out
}

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// datedRE is a release date a gateway may append to the model requested.
var datedRE = regexp.MustCompile(`^-(\d{8}|\d{4}-\d{2}-\d{2})$`)

// checkModel: the model used is the one requested (2.3, 2.4); the same id
// with a release date appended is the verified tier's reading only.
func checkModel(v violations, got any, requested string) {
	s, _ := got.(string)
	rest, dated := strings.CutPrefix(s, requested)
	switch {
	case s == requested:
	case dated && datedRE.MatchString(rest):
		v.add(fModelDated)
	default:
		v.add(fModelOther)
	}
}

// stopClaim reads a stop reason of the interface's own words: "cut" for
// the one saying the output stopped at max_tokens, "done" for the other;
// anything else is the fault named, and claims neither.
func stopClaim(v violations, reason any, cut, done, fault string) string {
	switch reason {
	case cut:
		return "cut"
	case done:
		return "done"
	}
	v.add(fault)
	return ""
}

// listedIDs are the sorted model ids of a model list response.
func listedIDs(r resp) []string {
	var m struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	json.Unmarshal(r.body, &m)
	var ids []string
	for _, d := range m.Data {
		ids = append(ids, d.ID)
	}
	slices.Sort(ids)
	return ids
}

func mediaType(r resp) string {
	mt, _, _ := mime.ParseMediaType(r.header.Get("Content-Type"))
	return mt
}

func isNumber(v any) bool { _, ok := v.(float64); return ok }

func isString(v any) bool { _, ok := v.(string); return ok }

func words(s string) int { return len(strings.Fields(s)) }

// answeredJSON is the common front of the JSON validators: a 200, labelled
// application/json, holding a JSON object. ok is false when nothing more
// can be checked.
func answeredJSON(r resp) (v violations, m map[string]any, ok bool) {
	v = violations{}
	switch r.status {
	case 200:
	case 201:
		v.add(fSuccess201) // a success, but not the 200 the clients see
	default:
		v.refused(r)
		return v, nil, false
	}
	if mediaType(r) == "text/event-stream" {
		v.add(fStreamByDefault) // 4.2, 4.3: stream omitted gives JSON
		return v, nil, false
	}
	if mediaType(r) != "application/json" {
		v.add(fWrongContentType)
	}
	if json.Unmarshal(r.body, &m) != nil {
		v.problem("not JSON")
		return v, nil, false
	}
	return v, m, true
}

// answeredStream is the common front of the stream validators: a 200
// labelled text/event-stream.
func answeredStream(r resp) (violations, bool) {
	v := violations{}
	if r.status != 200 {
		v.refused(r)
		return v, false
	}
	if mediaType(r) == "application/json" && strings.HasPrefix(string(r.body), "{") {
		v.add(fStreamIgnored) // a JSON body, not a stream labelled so
		return v, false
	}
	if mediaType(r) != "text/event-stream" {
		v.add(fWrongContentType)
	}
	return v, true
}

// refused records the refusal of a valid request (the validators send
// only those): the fault of an endpoint that refuses everything — a 404
// from an image endpoint (no such route), a 400 from chat completions (a
// relay refusing every request) — or else a problem.
func (v violations) refused(r resp) {
	switch {
	case r.status == http.StatusMultipleChoices:
		v.add(fSuccess300)
	case r.status == http.StatusNotFound && strings.Contains(string(r.body), "is not available to this key"):
		v.add(fVerifiedModel404) // the validators send listed models only
	case r.status == http.StatusNotFound && strings.HasPrefix(r.path, "/v1/images/"):
		v.add(fImageRoutesMissing)
	case r.status == http.StatusInternalServerError && r.path == "/v1/models":
		v.add(fModelsList500)
	case refusalFault(r) != "":
		v.add(refusalFault(r))
	case r.status == http.StatusBadRequest && r.path == "/v1/chat/completions":
		v.add(fChatRefusesAll)
	default:
		v.problem("status %d: %.300s", r.status, r.body)
	}
}

// refusalFaults name the fault behind a 4xx to a valid request by words of
// its error message: faults refusing a form, a value or a path the
// validators send.
var refusalFaults = []struct{ words, fault string }{
	{"content must be an array of content parts", fStringContentRefused}, // string content
	{"content must be a string", fTextBlocksRefused},                     // text blocks
	{"takes text content only", fAltImageRefused},                        // alt-flash given one image
	{"temperature is not supported", fTemperatureRefused},
	{"max_tokens is not supported", fMaxTokensRefused},
	{"JSON edits are not supported", fEditJSONRefused},
	{"multipart edits are not supported", fEditMultipartRefused},
	{"output_compression is required", fPNGCompressionNeeded},
	{"chat completions are served at /chat/completions", fChatUnversioned},
	{"messages are served at /anthropic/v1/messages", fMessagesPrefixed},
}

// refusalFault is the fault of refusalFaults behind r, or "".
func refusalFault(r resp) string {
	if r.status/100 != 4 {
		return ""
	}
	for _, f := range refusalFaults {
		if strings.Contains(string(r.body), f.words) {
			return f.fault
		}
	}
	return ""
}

// problem records a failure no fault explains: tests assert on it.
func (v violations) problem(format string, args ...any) {
	v.add("PROBLEM: " + fmt.Sprintf(format, args...))
}

func validateModels(r resp, verified string) violations {
	v, m, ok := answeredJSON(r)
	if !ok {
		return v
	}
	if m["object"] != "list" {
		v.add(fMissingField)
	}
	if _, ok := m["data"].(map[string]any); ok {
		v.add(fListDataObject)
		return v
	}
	data, _ := m["data"].([]any)
	if len(data) == 0 {
		v.problem("no data")
	}
	found, ids := false, true
	for _, e := range data {
		em, _ := e.(map[string]any)
		switch o, ok := em["object"]; {
		case !ok:
			v.add(fMissingField)
		case o != "model":
			v.add(fModelObjectOther)
		}
		if _, ok := em["id"].(string); !ok {
			v.add(fModelIDRenamed)
			ids = false
		}
		if _, ok := em["owned_by"].(string); !ok {
			v.add(fWrongType)
		}
		if em["id"] == verified {
			found = true
		}
	}
	if !found && ids {
		v.add(fModelMissing)
	}
	return v
}

func validateChatJSON(r resp, model string, maxTokens int) violations {
	v, m, ok := answeredJSON(r)
	if !ok {
		return v
	}
	if _, ok := m["choices"].(map[string]any); ok {
		v.add(fChoicesObject)
		return v
	}
	if choices, ok := m["choices"].([]any); ok && len(choices) == 0 {
		v.add(fChatNoChoice) // so no generated text (2.3)
		return v
	}
	switch o, ok := m["object"]; {
	case !ok:
		v.add(fMissingField)
	case o != "chat.completion":
		v.add(fChatObjectOther)
	}
	if _, ok := m["created"].(float64); !ok {
		v.add(fMissingField)
	}
	if idx, _ := field(m, "choices.0.index"); !isNumber(idx) {
		v.add(fWrongType)
	}
	if role, _ := field(m, "choices.0.message.role"); role != "assistant" {
		v.add(fRoleOther)
	}
	checkModel(v, m["model"], model)
	fr, _ := field(m, "choices.0.finish_reason")
	claim := stopClaim(v, fr, "length", "stop", fFinishReasonOther)
	content, _ := field(m, "choices.0.message.content")
	text, ok := content.(string)
	if !ok {
		v.add(fMissingField)
		return v
	}
	// Usage is not shown by 2.3; where it is there, it counts the output,
	// which max_tokens bounds (an output past the bound is the fault above).
	ct, hasUsage := field(m, "usage.completion_tokens")
	if maxTokens > 0 && words(text) > maxTokens && hasUsage && isNumber(ct) && ct.(float64) <= float64(maxTokens) {
		v.add(fChatTextOver) // the text runs past the bound its own usage keeps
		return v
	}
	checkLength(v, words(text), maxTokens, claim)
	if hasUsage && maxTokens > 0 && words(text) <= maxTokens && (!isNumber(ct) || ct.(float64) > float64(maxTokens)) {
		v.add(fChatUsageOver)
	}
	return v
}

// checkLength: at most maxTokens words, and a stop claimed at the bound
// ("cut") exactly when the output reached it; a claim of "" says neither.
func checkLength(v violations, n, maxTokens int, claim string) {
	switch {
	case maxTokens <= 0:
	case n > maxTokens, n == maxTokens && claim == "done":
		v.add(fMaxTokensIgnored)
	case n < maxTokens && claim == "cut":
		v.add(fMaxTokensHalved)
	}
}

// fragment is the part of a text delta a client joining fragments (6.2)
// should have got: a delta that repeats the whole text so far names
// fCumulativeDeltas, and only its new part counts.
func fragment(v violations, text *strings.Builder, delta string) string {
	if text.Len() > 0 && strings.HasPrefix(delta, text.String()) {
		v.add(fCumulativeDeltas)
		return delta[text.Len():]
	}
	return delta
}

// readStream is the common front of the stream validators: a 200 labelled
// text/event-stream, its events, and whether it was complete.
func readStream(r resp) (v violations, events []sseEvent, complete, ok bool) {
	v, ok = answeredStream(r)
	if !ok {
		return v, nil, false, false
	}
	events, complete, unended := parseSSE(r.body)
	for _, e := range events {
		switch {
		case e.lines == 1:
		case json.Valid([]byte(e.data)):
			v.add(fDataSplit) // one JSON event over several data: lines
		default:
			// Events no blank line parts: nothing more can be read.
			v.add(fNoBlankLines)
			return v, nil, false, false
		}
	}
	if !complete {
		v.add(fStreamCut)
	}
	if unended {
		v.add(fNoFinalBlankLine)
	}
	return v, events, complete, true
}

func validateChatStream(r resp, model string, maxTokens int) violations {
	v, events, complete, ok := readStream(r)
	if !ok {
		return v
	}
	if len(events) == 0 {
		v.problem("no events")
		return v
	}
	var text strings.Builder
	id := ""
	finish := ""
	usages := 0
	for i, e := range events {
		if e.data == "[DONE]" {
			if i != len(events)-1 {
				v.problem("[DONE] not last")
			}
			continue
		}
		var m map[string]any
		if json.Unmarshal([]byte(e.data), &m) != nil {
			v.add(fChatDataNotJSON)
			continue
		}
		if m["object"] != "chat.completion.chunk" {
			v.add(fMissingField)
		}
		if got, ok := m["model"]; !ok {
			v.add(fChunkModelDropped)
		} else if got != model {
			v.add(fStreamModelOther)
		}
		if cid, _ := m["id"].(string); cid == "" && id != "" {
			v.add(fChatIDDropped)
		} else if id == "" {
			id = cid
		} else if cid != id {
			v.add(fChatIDChanges)
		}
		if _, ok := m["error"]; ok {
			v.add(fErrorMemberNull)
		}
		if _, ok := m["usage"].(map[string]any); ok {
			if usages++; usages > 1 {
				v.add(fChatUsageRepeated)
			}
		}
		choices, _ := m["choices"].([]any)
		if len(choices) == 0 {
			continue
		}
		if idx, _ := field(m, "choices.0.index"); !isNumber(idx) {
			v.add(fWrongType)
		}
		if i == 0 {
			if role, _ := field(m, "choices.0.delta.role"); role != "assistant" {
				v.problem("no role in first delta")
			}
		}
		if c, ok := field(m, "choices.0.delta.content"); ok {
			s, _ := c.(string)
			text.WriteString(fragment(v, &text, s))
		}
		if fr, _ := field(m, "choices.0.finish_reason"); fr != nil {
			finish, _ = fr.(string)
		} else if finish != "" {
			v.add(fFinishReasonCleared)
		}
	}
	if complete {
		if events[len(events)-1].data != "[DONE]" {
			v.add(fChatNoDone)
		}
		if finish == "" {
			v.problem("no finish_reason")
		} else {
			checkLength(v, words(text.String()), maxTokens, stopClaim(v, finish, "length", "stop", fFinishReasonOther))
		}
	}
	return v
}

func validateMessagesJSON(r resp, model string, maxTokens int) violations {
	v, m, ok := answeredJSON(r)
	if !ok {
		return v
	}
	if m["type"] != "message" {
		v.add(fMissingField)
	}
	if m["role"] != "assistant" {
		v.add(fRoleOther)
	}
	for _, f := range []string{"usage.input_tokens", "usage.output_tokens", "usage.cache_creation_input_tokens", "usage.cache_read_input_tokens"} {
		switch x, ok := field(m, f); {
		case ok && x == nil && strings.Contains(f, "cache"):
			v.add(fCacheTokensNull)
		case !ok || !isNumber(x):
			v.add(fWrongType)
		}
	}
	if _, ok := m["content"].(string); ok {
		v.add(fContentString)
		return v
	}
	text := ""
	blocks, _ := m["content"].([]any)
	for _, b := range blocks {
		bm, _ := b.(map[string]any)
		switch {
		case bm["type"] == "output_text":
			v.add(fBlockTypeOther)
			return v
		case bm["type"] != "text":
		case bm["text"] != nil && !isString(bm["text"]):
			v.add(fBlockTextParts)
			return v
		default:
			s, _ := bm["text"].(string)
			text += s
		}
	}
	checkModel(v, m["model"], model)
	claim := stopClaim(v, m["stop_reason"], "max_tokens", "end_turn", fStopReasonOther)
	checkLength(v, words(text), maxTokens, claim)
	// 2.4 shows usage.output_tokens: it counts the output, which max_tokens
	// bounds (an output past the bound is the fault above).
	if out, _ := field(m, "usage.output_tokens"); maxTokens > 0 && words(text) <= maxTokens && isNumber(out) && out.(float64) > float64(maxTokens) {
		v.add(fMessagesUsageOver)
	}
	return v
}

// messagesKinds are the event kinds 6.3 names.
var messagesKinds = map[string]bool{"message_start": true, "content_block_start": true, "content_block_delta": true,
	"content_block_stop": true, "message_delta": true, "message_stop": true}

func validateMessagesStream(r resp, model string, maxTokens int) violations {
	v, events, complete, ok := readStream(r)
	if !ok {
		return v
	}
	var names []string
	var text strings.Builder
	deltas, textDeltas := 0, 0
	stop := ""
	for i, e := range events {
		var m map[string]any
		if json.Unmarshal([]byte(e.data), &m) != nil {
			v.problem("event %d not JSON", i)
			continue
		}
		kind, typed := m["type"].(string)
		switch {
		case e.name == "":
			v.add(fUnnamedEvents)
		case !typed:
			v.add(fUntypedEvents)
			kind = e.name
		case kind != e.name:
			v.add(fEventNameOther)
		}
		if kind == "ping" {
			continue
		}
		if !messagesKinds[kind] {
			switch {
			case len(names) == 0 || names[len(names)-1] != "message_stop":
				v.problem("event %q before message_stop", kind)
			case kind == "error":
				v.add(fErrorAfterStop)
			default:
				v.add(fEventAfterStop)
			}
			continue
		}
		if strings.HasPrefix(kind, "content_block_") {
			if idx, _ := m["index"].(float64); idx != 0 {
				v.add(fBlockIndexGap)
			}
		}
		names = append(names, kind)
		switch kind {
		case "message_start":
			if _, ok := m["message"]; !ok {
				v.add(fStartMessageMissing)
			} else if got, _ := field(m, "message.model"); got != model {
				v.add(fStreamModelOther)
			}
		case "content_block_start":
			if bt, _ := field(m, "content_block.type"); bt != "text" {
				v.add(fContentBlockMissing)
			}
		case "content_block_delta":
			deltas++
			if s, ok := field(m, "delta.text"); ok {
				if dt, _ := field(m, "delta.type"); dt != "text_delta" {
					v.add(fTextDeltaUntyped)
				}
				str, _ := s.(string)
				text.WriteString(fragment(v, &text, str))
				textDeltas++
			} else {
				v.add(fMissingField)
			}
		case "message_delta":
			if x, ok := field(m, "usage.output_tokens"); !ok {
				v.add(fDeltaUsageMissing)
			} else if !isNumber(x) {
				v.add(fWrongType)
			}
			sr, _ := field(m, "delta.stop_reason")
			stop, _ = sr.(string)
		case "message_stop":
			if sr, ok := m["stop_reason"].(string); ok {
				if slices.Contains(names, "message_delta") {
					v.add(fStopReasonOnStop)
				} else {
					v.add(fMessagesNoDelta) // on message_stop, as no message_delta came
				}
				if stop == "" {
					stop = sr
				}
			}
		}
	}
	if len(names) == 0 || names[0] != "message_start" {
		v.problem("first event %v", names)
		return v
	}
	// Order of kinds: message_start, content-block events, message_delta, message_stop.
	seenDelta := false
	for _, n := range names[1:] {
		switch {
		case strings.HasPrefix(n, "content_block_"):
			if seenDelta {
				v.add(fMessagesOutOfOrder)
			}
		case n == "message_delta":
			seenDelta = true
		}
	}
	if complete {
		if names[len(names)-1] != "message_stop" {
			v.add(fMessagesNoStop)
		}
		switch {
		case stop == "":
			v.problem("no stop_reason")
		case deltas == 0:
			stopClaim(v, stop, "max_tokens", "end_turn", fStopReasonOther)
			v.add(fTextInBlockStart)
		case textDeltas < deltas:
			// fMissingField is named: the text is not all there, so its
			// length says nothing.
			stopClaim(v, stop, "max_tokens", "end_turn", fStopReasonOther)
		default:
			checkLength(v, words(text.String()), maxTokens, stopClaim(v, stop, "max_tokens", "end_turn", fStopReasonOther))
		}
	}
	return v
}

// imageExpect is what an image response must hold.
type imageExpect struct {
	n           int
	format      string
	w, h        int
	transparent bool
	background  string // the background requested ("": none)
	family      string // streams: image_generation or image_edit
	partial     int
	quality     string // the quality requested ("": not checked)
}

// checkImage validates one b64_json value; it returns the decoded image when usable.
func checkImage(v violations, b64 any, exp imageExpect) *decoded {
	s, ok := b64.(string)
	if !ok {
		v.add(fWrongType)
		return nil
	}
	d, err := decodeB64(s)
	if err != nil {
		v.add(fBadBase64)
		return nil
	}
	if d.err != nil {
		v.add(fUndecodable)
		return nil
	}
	if d.format != exp.format {
		v.add(fWrongFormat)
		return &d
	}
	if sz := d.img.Bounds().Size(); sz.X != exp.w || sz.Y != exp.h {
		v.add(fSizeMismatch)
	}
	tr, op := alphaKinds(d.img)
	switch {
	case !exp.transparent || (tr && op):
	case translucent(d.img):
		v.add(fAlphaSpeck)
	default:
		v.add(fAlphaDropped)
	}
	if !exp.transparent && tr {
		v.problem("transparent pixels without background transparent")
	}
	return &d
}

func validateImageJSON(r resp, exp imageExpect) (violations, []*decoded) {
	v, m, ok := answeredJSON(r)
	if !ok {
		return v, nil
	}
	if _, has := m["error"]; has {
		v.add(fErrorField)
	}
	switch c, ok := m["created"]; {
	case !ok:
		v.add(fMissingField)
	case !isNumber(c):
		v.add(fWrongType)
	default:
		// Unix seconds (2.2), of this request.
		switch at := time.Unix(int64(c.(float64)), 0); {
		case at.After(time.Now().Add(24 * time.Hour)):
			v.add(fCreatedMillis)
		case time.Since(at).Abs() > 15*time.Minute:
			v.add(fCreatedHoursOff)
		}
	}
	generation := r.path == "/v1/images/generations"
	if generation && m["size"] == "1254x1254" && (exp.w != 1254 || exp.h != 1254) {
		v.add(fGenSizeIgnored) // the default size, whatever was requested
		exp.w, exp.h = 1254, 1254
	}
	if m["output_format"] != exp.format || m["size"] != fmt.Sprintf("%dx%d", exp.w, exp.h) {
		v.problem("output_format %v size %v", m["output_format"], m["size"])
	}
	if exp.quality != "" && m["quality"] != exp.quality {
		v.add(fQualityOther)
	}
	wantBG := "opaque"
	if exp.transparent {
		wantBG = "transparent"
	}
	switch bg := m["background"]; {
	case bg == wantBG:
	case bg == "opaque" || bg == "transparent":
		v.add(fBackgroundMismatch)
	case bg == exp.background:
		v.add(fBackgroundEcho) // the request (auto) rather than a background
	default:
		v.add(fBackgroundAuto) // no background, nor what was requested
	}
	if _, ok := m["usage"].(map[string]any); !ok {
		v.add(fUsageMissing)
	} else {
		// Each group: its count and the two integers of its details.
		numbers := map[string]bool{}
		for _, g := range []string{"input_tokens", "output_tokens"} {
			x, _ := field(m, "usage."+g)
			img, _ := field(m, "usage."+g+"_details.image_tokens")
			txt, _ := field(m, "usage."+g+"_details.text_tokens")
			numbers[g] = isNumber(x) && isNumber(img) && isNumber(txt)
		}
		if !numbers["input_tokens"] {
			v.add(fUsageInputStrings)
		}
		if !numbers["output_tokens"] {
			v.add(fUsageOutputStrings)
		}
		in, _ := field(m, "usage.input_tokens")
		out, _ := field(m, "usage.output_tokens")
		tot, _ := field(m, "usage.total_tokens")
		switch {
		case !isNumber(tot):
			v.problem("usage.total_tokens %v", tot)
		case isNumber(in) && isNumber(out) && in.(float64)+out.(float64) != tot.(float64):
			v.add(fTotalTokensOff)
		}
	}
	data, _ := m["data"].([]any)
	switch {
	case len(data) == 0:
		v.add(fEmptyData)
	case len(data) < exp.n:
		v.add(fFewerImages)
	case len(data) > exp.n && generation:
		v.add(fGenNDefault2) // the validators send n only where they expect more than one
	case len(data) > exp.n:
		v.add(fEditNDefault2)
	}
	var imgs []*decoded
	for _, e := range data {
		em, _ := e.(map[string]any)
		if id, _ := em["generation_id"].(string); !uuidRE.MatchString(id) {
			v.add(fGenerationIDOther)
		}
		imgs = append(imgs, checkImage(v, em["b64_json"], exp))
	}
	return v, imgs
}

func validateImageStream(r resp, exp imageExpect) violations {
	v, events, complete, ok := readStream(r)
	if !ok {
		return v
	}
	completed, previews := 0, 0
	for i, e := range events {
		var m map[string]any
		if json.Unmarshal([]byte(e.data), &m) != nil {
			v.problem("event %d not JSON", i)
			continue
		}
		typ, ok := m["type"].(string)
		if !ok {
			v.add(fMissingField)
			typ = e.name
		}
		if _, ok := m["error"]; ok {
			v.add(fErrorMemberNull)
		}
		if typ != e.name {
			v.add(fEventNameOther)
		}
		if m["size"] != fmt.Sprintf("%dx%d", exp.w, exp.h) || m["output_format"] != exp.format {
			v.add(fImageEventFields)
		}
		fam, kind, _ := strings.Cut(typ, ".")
		if fam != exp.family {
			v.add(fWrongEventFamily)
		}
		switch kind {
		case "partial_image":
			idx, ok := m["partial_image_index"].(float64)
			if !ok {
				v.add(fWrongType)
			} else if int(idx) != previews {
				v.add(fPreviewIndexOrder)
			}
			previews++
			if previews > exp.partial {
				v.add(fPreviewOverflow)
			}
			if s, ok := m["b64_json"].(string); ok {
				if d, err := decodeB64(s); err != nil || d.err != nil {
					v.problem("preview undecodable")
				}
			}
		case "completed":
			completed++
			previews = 0
			checkImage(v, m["b64_json"], exp)
			if _, ok := field(m, "usage.total_tokens"); !ok {
				v.problem("completed without usage")
			}
		default:
			v.problem("event type %q", typ)
		}
	}
	if complete {
		switch {
		case completed == 0:
			v.add(fImageNoCompleted)
		case completed < exp.n:
			v.add(fFewerImages)
		case completed > exp.n:
			v.add(fPreviewsCompleted) // previews sent as final images
		}
	}
	return v
}

// translucent reports whether any pixel of img is not fully opaque: every
// pixel, as a speck is too small for alphaKinds' sampling grid.
func translucent(img image.Image) bool {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if _, _, _, a := img.At(x, y).RGBA(); a != 0xffff {
				return true
			}
		}
	}
	return false
}
