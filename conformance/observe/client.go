package observe

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/record"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// A client rule is one sentence of the spec a request must keep: where it
// applies, how a request breaks it, and, when the spec states one, the
// answer the gateway owes a request that breaks it (section 7, 5.2).
type rule struct {
	row string // the spec row the rule is
	// on are the endpoints it applies to (nil: every request); member,
	// when set, limits it to requests that send that member (a type rule
	// judges nothing of a request without it).
	on     []string
	member string
	// owed is the answer the spec states for a request that breaks it;
	// nil when it states none (the gateway's answer is then not judged).
	owed *owed
	// broken reports how q breaks the rule: one breach per place.
	broken func(q *Request) []breach
}

// breach is one place where a request breaks a rule.
type breach struct{ where, expected, actual string }

// owed is an answer the spec states: a status, or a refusal of any 4xx or
// 5xx (5.2 shows no status), and the row that states it.
type owed struct {
	row    string
	status int
	in     *catalog.StatusSet
	// tier is the tier of the row (negative when unset): a strict one's
	// refusal follows from the spec's text, not its error table.
	tier vocab.Tier
}

// owed400 is a 400, as the row states.
func owed400(row string) *owed { return &owed{row: row, status: 400} }

// refused is 5.2's "image endpoints require a key with image permission":
// any answer that serves no image, as the catalog's key-permission cases
// read it; a timeout or a throttle is none.
var refused = &owed{row: "5.2/image-permission", in: &catalog.StatusSet{Classes: []string{"4xx", "5xx"}, Except: []int{408, 429}}}

var (
	jsonEndpoints  = []string{endpointChat, endpointMessages, endpointGenerations, endpointEdits}
	imageEndpoints = []string{endpointGenerations, endpointEdits}
)

// clientRules are the spec's request rules, in spec order. Each cites the
// row it keeps; a request outside the verified rows that breaks none of
// them is noted (notes.go), never failed.
var clientRules = []rule{
	{row: "intro/paths-v1", on: shownEndpoints, broken: func(q *Request) []breach {
		if carriesV1(q.Path) {
			return nil // a prefix before /v1 breaks the exact paths instead
		}
		return []breach{{"path", "a path under /v1", q.Path}}
	}},
	{row: "4/base-url-plus-path", on: []string{endpointModels, endpointChat, endpointGenerations, endpointEdits}, broken: exactPath},
	method("4.1/method", endpointModels, "GET"),
	method("4.2/method", endpointChat, "POST"),
	method("4.3/method", endpointMessages, "POST"),
	method("4.4/method", endpointGenerations, "POST"),
	method("4.5/method", endpointEdits, "POST"),
	{row: "4.1/no-payload", on: []string{endpointModels}, broken: func(q *Request) []breach {
		if q.Empty {
			return nil
		}
		return []breach{{"body", "none (payload sent: none)", "a body"}}
	}},
	{row: "4/json-content-type", on: jsonEndpoints, broken: func(q *Request) []breach {
		if !q.JSON || q.ContentType == "application/json" {
			return nil
		}
		return []breach{{"Content-Type", "application/json", orNone(q.ContentType)}}
	}},
	// A body sent as JSON that does not parse can never succeed; 7 states
	// no status for it, so only the strict tier owes it a 4xx (the
	// catalog's malformed-JSON case).
	{row: "4/json-content-type", on: jsonEndpoints, owed: &owed{row: "4/json-content-type", tier: vocab.TierStrict, status: 400}, broken: func(q *Request) []breach {
		if !q.unparsed() {
			return nil
		}
		return []breach{{"body", "a JSON document", "a body that does not parse as JSON"}}
	}},
	required("4.2/model-omitted", endpointChat, "model", owed400("7/chat-no-model")),
	required("4.2/messages-omitted", endpointChat, "messages", owed400("7/chat-no-messages")),
	{row: "4.3/exact-path", on: []string{endpointMessages}, broken: exactPath},
	required("4.3/model-omitted", endpointMessages, "model", owed400("7/messages-no-model")),
	required("4.3/messages", endpointMessages, "messages", nil),
	{row: "4.3/max-tokens-alt-required", on: []string{endpointMessages}, broken: func(q *Request) []breach {
		if _, ok := q.param("max_tokens"); ok || !q.alternative() {
			return nil
		}
		return []breach{{"max_tokens", "max_tokens (the alternative text model)", "absent"}}
	}},
	required("4.4/prompt", endpointGenerations, "prompt", nil),
	outputFormat("2.2/output-format", endpointGenerations),
	outputFormat("4.5/output-format", endpointEdits),
	{row: "4.4/partial-images", on: []string{endpointGenerations}, broken: partialImages},
	required("4.5/prompt-omitted", endpointEdits, "prompt", owed400("7/edit-no-prompt")),
	{row: "4.5/rule-1", on: []string{endpointEdits}, owed: owed400("7/edit-no-image"), broken: func(q *Request) []breach {
		if q.references() > 0 || q.fileIDs() != nil {
			return nil // a file_id reference breaks rule 2, not rule 1
		}
		return []breach{{"images", "a reference image (JSON images, or a multipart image or image[] file)", "none"}}
	}},
	{row: "4.5/rule-2", on: []string{endpointEdits}, owed: owed400("7/edit-file-id"), broken: func(q *Request) []breach {
		var out []breach
		for _, where := range q.fileIDs() {
			out = append(out, breach{where, "image_url (file_id is rejected)", "file_id"})
		}
		return out
	}},
	{row: "4.5/json-images", on: []string{endpointEdits}, broken: func(q *Request) []breach {
		var out []breach
		for i, img := range q.jsonList("images") {
			if _, fileID := img["file_id"]; fileID {
				continue
			}
			u, _ := img["image_url"].(string)
			if !completeDataURL(u) && !httpsURL(u) {
				out = append(out, breach{fmt.Sprintf("images[%d].image_url", i), "a complete data:<media_type>;base64,<data> URL or an https URL", shortValue(img["image_url"])})
			}
		}
		return out
	}},
	{row: "4.5/json-mask", on: []string{endpointEdits}, broken: func(q *Request) []breach {
		mask, ok := q.Body["mask"]
		if !ok || q.Multipart() {
			return nil
		}
		m, _ := mask.(map[string]any)
		if _, fileID := m["file_id"]; fileID {
			return nil
		}
		if u, _ := m["image_url"].(string); !completeDataURL(u) {
			return []breach{{"mask.image_url", "a complete data:<media_type>;base64,<data> URL", shortValue(m["image_url"])}}
		}
		return nil
	}},
	{row: "4.5/multipart-image", on: []string{endpointEdits}, broken: func(q *Request) []breach {
		var out []breach
		for _, p := range q.Parts {
			if isFile(p) && p.Name != "image" && p.Name != "image[]" && p.Name != "mask" {
				out = append(out, breach{"multipart " + p.Name, "a file field named image, image[] or mask", p.Name})
			}
		}
		return out
	}},
	{row: "4.5/multipart-two-refs", on: []string{endpointEdits}, broken: func(q *Request) []breach {
		if n := len(q.files("image")); n > 1 {
			return []breach{{"multipart image", "image[] fields for two reference images", fmt.Sprintf("%d image fields", n)}}
		}
		return nil
	}},
	{row: "4.5/partial-images", on: []string{endpointEdits}, broken: partialImages},
	{row: "7/stream-partial-images", on: imageEndpoints, owed: owed400("7/stream-partial-images"), broken: streamPartialImages},
	{row: "5.1/bearer", broken: func(q *Request) []breach {
		if q.Auth == record.AuthBearer || !q.apiCall() {
			return nil
		}
		sent := map[string]string{"": "no credential", record.AuthAPIKey: "an x-api-key header", record.AuthOther: "Authorization with another scheme"}[q.Auth]
		return []breach{{"Authorization", "Authorization: Bearer <API_KEY>", sent}}
	}},
	{row: "5.2/image-permission", on: imageEndpoints, owed: refused, broken: func(q *Request) []breach {
		if !q.keyOfKind() || q.Key == string(catalog.KeyImage) {
			return nil
		}
		return []breach{{"key", "the image key", "the " + q.Key + " key"}}
	}},
	{row: "5.2/use-matching-key", on: []string{endpointChat, endpointMessages}, broken: func(q *Request) []breach {
		want := "text"
		switch {
		case q.Endpoint == endpointMessages && q.alternative():
			return nil // 5.3 says which key the alternative model takes
		case q.Endpoint == endpointMessages:
			want = "messages"
		}
		if q.Key == want || !q.keyOfKind() {
			return nil
		}
		return []breach{{"key", "the " + want + " key", "the " + q.Key + " key"}}
	}},
	{row: "5.3/alt-key", on: []string{endpointMessages}, broken: func(q *Request) []breach {
		if !q.alternative() || q.Key == "alt" || !q.keyOfKind() {
			return nil
		}
		return []breach{{"key", "the alt key (the alternative text model's own kind)", "the " + q.Key + " key"}}
	}},
}

// retiredModels are the ids the spec names as retired, by endpoint: a
// request for one breaks no rule of the client's (its list may still
// name it), but the gateway owes it a 404 (1, 7, 9).
var retiredModels = map[string][]string{endpointMessages: {"msg-sonnet-4-6"}}

// retired is the 404 a request for a retired model is owed, and the note
// that says so; nil for any other request.
func (v verifiedForms) retired(q *Request) (*owed, string) {
	model := q.Model()
	if model == "" {
		return nil, ""
	}
	for _, id := range retiredModels[q.Endpoint] {
		if v.specModel(model, []string{id}) != "" {
			return &owed{row: "7/messages-unknown-model", status: 404},
				fmt.Sprintf("%s is retired: the spec states 404 for it (spec 1/sonnet-4-6-404, 9/retired-404-messages)", model)
		}
	}
	return nil, ""
}

// shownEndpoints are the endpoints whose path the spec shows (4.1–4.5):
// the Responses interface's is not shown (4.6), so no path rule is its.
var shownEndpoints = []string{endpointModels, endpointChat, endpointMessages, endpointGenerations, endpointEdits}

// exactPath: the request goes to the base URL plus the endpoint's path,
// nothing between (4; 4.3 says it of messages in so many words): no
// segment before /v1 (an empty one of //v1 included), none between /v1
// and the rest, no trailing slash, no misspelling. A path without the
// version segment is the first rule's.
func exactPath(q *Request) []breach {
	if !carriesV1(q.Path) || q.Path == q.Endpoint {
		return nil
	}
	expected := q.Endpoint
	if !strings.HasSuffix(strings.TrimSuffix(q.Path, "/"), strings.TrimPrefix(q.Endpoint, "/v1")) {
		expected = "an endpoint's path: did you mean " + q.Endpoint + "?"
	}
	return []breach{{"path", expected, q.Path}}
}

// method is the rule that an endpoint is called with the method its
// heading names.
func method(row, endpoint, want string) rule {
	return rule{row: row, on: []string{endpoint}, broken: func(q *Request) []breach {
		if q.Method == want {
			return nil
		}
		return []breach{{"method", want + " " + endpoint, q.Method}}
	}}
}

// outputFormats are 2.2's closed list of output_format (4.5 allows the same).
var outputFormats = []string{"png", "jpeg", "webp"}

// outputFormat: a string output_format is one of outputFormats (a value
// of another type is the type rules'; an empty one is noted, as a client
// that cannot leave a field out sends it empty).
func outputFormat(row, endpoint string) rule {
	return rule{row: row, on: []string{endpoint}, member: "output_format", broken: func(q *Request) []breach {
		v, _ := q.param("output_format")
		if f, ok := v.(string); ok && f != "" && !slices.Contains(outputFormats, f) {
			return []breach{{"output_format", strings.Join(outputFormats, ", "), f}}
		}
		return nil
	}}
}

// carriesV1 says a path has the version segment: it starts with /v1/, or
// an undeclared prefix (or an empty segment) comes before it.
func carriesV1(path string) bool {
	return strings.Contains(path, "/v1/")
}

// required is the rule that a member be given (JSON member or multipart
// field, not null).
func required(row, endpoint, member string, o *owed) rule {
	return rule{row: row, on: []string{endpoint}, owed: o, broken: func(q *Request) []breach {
		if v, ok := q.param(member); ok && v != nil || q.unparsed() {
			return nil // a body that does not parse is its own breach
		}
		return []breach{{member, member + " (required)", "absent"}}
	}}
}

// partialImages: partial_images is 0 to 3 and for a stream only (4.4,
// 4.5, 8); a stream's -1 and 4 are section 7's row (streamPartialImages).
func partialImages(q *Request) []breach {
	n, ok := partialImagesSent(q)
	switch {
	case !ok || streamPartialImages(q) != nil:
		return nil
	case n < 0 || n > 3:
		return []breach{{"partial_images", "0 to 3", strconv.Itoa(n)}}
	case !q.Streams():
		return []breach{{"partial_images", "only with stream: true (streaming only)", "without stream: true"}}
	}
	return nil
}

// streamPartialImages: a streaming image request with partial_images of
// -1 or 4, which section 7 says gives 400.
func streamPartialImages(q *Request) []breach {
	if n, ok := partialImagesSent(q); ok && (n == -1 || n == 4) && q.Streams() {
		return []breach{{"partial_images", "0 to 3", strconv.Itoa(n)}}
	}
	return nil
}

// partialImagesSent is the integer partial_images sent (a value of
// another type is the type rules').
func partialImagesSent(q *Request) (int, bool) {
	v, ok := q.param("partial_images")
	if !ok || v == nil {
		return 0, false
	}
	return integer(v)
}

// keyOfKind says the request's key is one of the configured kinds (not
// none, nor a key of no configured kind): only then can the key rules of
// 5.2 and 5.3 tell a wrong kind.
func (q *Request) keyOfKind() bool {
	return slices.Contains(catalog.KeyKinds, catalog.KeyKind(q.Key))
}

// alternative says the request is for the alternative text model: naming
// a model of the alternative-model key by any name (alt-flash, its
// vendor's gemini-flash, a --model-map name), or, naming one the judge
// cannot place, sent with that key kind (5.3).
func (q *Request) alternative() bool {
	switch {
	case q.placed(catalog.KeyAlt) != "":
		return true
	case q.messagesModel():
		return false
	}
	return q.Key == string(catalog.KeyAlt)
}

// messagesModel says the request names a model of the messages key, by
// any name (a msg- model sent with the alt key breaks 5.2).
func (q *Request) messagesModel() bool { return q.placed(catalog.KeyMessages) != "" }

// httpsURL: an https URL, the scheme in any case (RFC 3986: schemes are
// case-insensitive, so HTTPS:// is https).
func httpsURL(u string) bool {
	return len(u) > len("https://") && strings.EqualFold(u[:len("https://")], "https://")
}

// fileIDs are the places a JSON edit names a file_id (4.5 rule 2).
func (q *Request) fileIDs() []string {
	var out []string
	for i, img := range q.jsonList("images") {
		if _, ok := img["file_id"]; ok {
			out = append(out, fmt.Sprintf("images[%d].file_id", i))
		}
	}
	if m, ok := q.Body["mask"].(map[string]any); ok {
		if _, ok := m["file_id"]; ok {
			out = append(out, "mask.file_id")
		}
	}
	return out
}

// jsonList is a JSON member that is an array, as its objects (an item
// that is no object is an empty one).
func (q *Request) jsonList(name string) []map[string]any {
	items, _ := q.Body[name].([]any)
	out := make([]map[string]any, len(items))
	for i, it := range items {
		out[i], _ = it.(map[string]any)
	}
	return out
}

// completeDataURL: data:<media_type>;base64,<data>, with data.
func completeDataURL(u string) bool {
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		return false
	}
	mt, data, ok := strings.Cut(rest, ";base64,")
	return ok && strings.Contains(mt, "/") && data != ""
}

// integer reads an integer parameter: a JSON number without a fraction,
// or a multipart field's decimal text, of any size (4294967296 is an
// integer; one beyond int's range reads as its nearest bound, which no
// range of the spec's holds either).
func integer(v any) (int, bool) {
	switch x := v.(type) {
	case float64:
		if math.IsInf(x, 0) || x != math.Trunc(x) {
			return 0, false
		}
		return int(max(min(x, 1<<62), -1<<62)), true
	case string:
		n, err := strconv.Atoi(strings.TrimSpace(x))
		return n, err == nil || errors.Is(err, strconv.ErrRange)
	}
	return 0, false
}

// shortValue shows a value in a finding: a long one (an image) is cut.
func shortValue(v any) string {
	if v == nil {
		return "absent"
	}
	s := fmt.Sprint(v)
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// unparsed says the body was sent as JSON (not multipart, not empty) but
// does not parse as JSON.
func (q *Request) unparsed() bool { return !q.Empty && !q.Multipart() && !q.JSON }
