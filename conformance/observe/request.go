// Package observe judges traffic gwconform did not send: each exchange a
// client had with a gateway, seen by a relay (serve --upstream --judge,
// serve --judge) or read back from a relay's recording (gwconform judge).
//
// It judges both sides of an exchange:
//   - the client's request against the spec's request rules (the rule
//     table of client.go), each finding naming the row it breaks; what the
//     spec does not verify is a note, never a finding;
//   - the gateway's answer with the check stage itself (check.Answer),
//     against an expectation derived from the request (gateway.go): the
//     checks the catalog applies to that kind of request, and the error
//     rows of section 7 whose condition the request meets.
//
// The rules here are the judge's own: the reference gateway validates
// requests with code of its own, so that a mistake in one is not hidden by
// the same mistake in the other.
package observe

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/record"
)

// Endpoints of the spec (4.1–4.6), by the path after the base URL.
const (
	endpointModels      = "/v1/models"
	endpointChat        = "/v1/chat/completions"
	endpointMessages    = "/v1/messages"
	endpointGenerations = "/v1/images/generations"
	endpointEdits       = "/v1/images/edits"
	endpointResponses   = "/v1/responses"
)

var endpoints = []string{endpointModels, endpointChat, endpointMessages, endpointGenerations, endpointEdits, endpointResponses}

// Request is an observed request as the rules read it.
type Request struct {
	Method string
	// Path is the path after the base URL (a declared base path,
	// Options.BasePaths, cut off), without the query.
	Path string
	// Endpoint is the spec's endpoint the path is meant for: the path
	// itself, or the endpoint it ends with when the client left out /v1
	// or added a segment ("" when it names none).
	Endpoint string
	// Key is the kind of the credential (record.Request.Key) and Auth how
	// it was sent (record.Request.Auth).
	Key, Auth   string
	ContentType string // the media type, without parameters
	// Header is the request's header as recorded (credentials dropped):
	// the client is named from it (catalog.Clients.Identify).
	Header http.Header
	// Body is the body's top-level JSON object; nil when the body is not
	// one. JSON says the body parses as JSON at all.
	Body map[string]any
	JSON bool
	// Parts are the parts of a multipart/form-data body, in order.
	Parts []record.Part
	// Empty says the request has no body.
	Empty bool
	// forms place the models the request names (the judge's verified
	// forms: the spec's ids, in a vendor's words or by --model-map); nil
	// places none.
	forms *verifiedForms
	// spec and placedIn keep what the model was placed as, once resolved
	// (modelid's matching over every id): on the endpoint's verified
	// models (specOnEndpoint), and among each key kind's (placed). The
	// rules ask it again and again of one request.
	spec     *string
	placedIn map[catalog.KeyKind]string
}

// FromRound reads the request of a recorded round; store rebuilds a JSON
// body's images from the recording's blobs.
func FromRound(r record.Round, store *record.Store) (*Request, error) {
	rq := r.Request
	header := record.Header(rq.Header)
	q := &Request{Method: rq.Method, Key: rq.Key, Auth: rq.Auth, Header: header}
	// The path as sent, without its query: a URL parser would read the
	// empty segment of //v1/chat/completions as a host and show
	// /chat/completions.
	q.Path, _, _ = strings.Cut(rq.Path, "?")
	q.Path, _, _ = strings.Cut(q.Path, "#")
	q.Endpoint = endpointOf(q.Path)
	q.ContentType, _, _ = mime.ParseMediaType(header.Get("Content-Type"))
	b := rq.Body
	switch {
	case b == nil || b.Bytes == 0:
		q.Empty = true
	case b.Multipart != nil:
		q.Parts = b.Multipart
	default:
		raw, err := store.BodyBytes(b)
		if err != nil {
			return nil, fmt.Errorf("%s %s: the request body: %w", rq.Method, rq.Path, err)
		}
		q.JSON = json.Valid(raw)
		if q.JSON {
			var obj map[string]any
			if json.Unmarshal(raw, &obj) == nil {
				q.Body = obj
			}
		}
	}
	return q, nil
}

// endpointOf is the spec endpoint a path is meant for: exactly one, the
// one it ends with (/chat/completions, /anthropic/v1/messages), or under
// /v1 the one it misspells (typo).
func endpointOf(path string) string {
	path = strings.TrimSuffix(path, "/")
	for _, e := range endpoints {
		if path == e {
			return e
		}
	}
	for _, e := range endpoints {
		if strings.HasSuffix(path, strings.TrimPrefix(e, "/v1")) {
			return e
		}
	}
	return typo(path)
}

// typo is the endpoint a path under /v1 misspells: as many segments, and
// within two edits of it (/v1/images/generation, /v1/message); "" for
// none. The Responses interface's path is not shown (4.6), so no path is
// its typo; nor is a longer path such as /v1/models/{id} one of the list's.
func typo(path string) string {
	if !strings.HasPrefix(path, "/v1/") {
		return ""
	}
	for _, e := range endpoints {
		if e != endpointResponses && strings.Count(e, "/") == strings.Count(path, "/") && catalog.EditDistance(path, e) <= 2 {
			return e
		}
	}
	return ""
}

// apiCall says the request is a call of the API: to an endpoint of the
// spec, however its path is spelled, or to any path under /v1. Anything
// else (GET /, /health) is no call the spec speaks of.
func (q *Request) apiCall() bool {
	return q.Endpoint != "" || underV1(q.Path)
}

func underV1(path string) bool { return path == "/v1" || strings.HasPrefix(path, "/v1/") }

// Multipart says the body is a multipart form.
func (q *Request) Multipart() bool { return q.Parts != nil }

// param is a top-level parameter: a JSON member, or a multipart text
// field's value (a string).
func (q *Request) param(name string) (any, bool) {
	if q.Multipart() {
		for _, p := range q.Parts {
			if p.Name == name && !isFile(p) {
				return p.Value, true
			}
		}
		return nil, false
	}
	v, ok := q.Body[name]
	return v, ok
}

// text is a parameter as text ("" when absent or null).
func (q *Request) text(name string) string {
	v, ok := q.param(name)
	if !ok || v == nil {
		return ""
	}
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'f', -1, 64) // 4294967296, not 4.294967296e+09
	}
	return fmt.Sprint(v)
}

// given is a parameter as text, "" when absent, null or sent with its
// default (isDefault): what it asks for beyond leaving it out.
func (q *Request) given(name string) string {
	if t := q.text(name); !isDefault(name, t) {
		return t
	}
	return ""
}

// placed is the spec id of those of a key kind that the request's model
// names ("" for none, or no model).
func (q *Request) placed(kind catalog.KeyKind) string {
	model := q.Model()
	if model == "" || q.forms == nil {
		return ""
	}
	if id, ok := q.placedIn[kind]; ok {
		return id
	}
	id := q.forms.specModel(model, q.forms.byKey[kind])
	if q.placedIn == nil {
		q.placedIn = map[catalog.KeyKind]string{}
	}
	q.placedIn[kind] = id
	return id
}

// Model is the model the request names ("" when none).
func (q *Request) Model() string {
	s, _ := q.param("model")
	m, _ := s.(string)
	return m
}

// Streams says the request asks for a stream (stream: true, or the
// multipart field "true").
func (q *Request) Streams() bool {
	v, _ := q.param("stream")
	return v == true || v == "true"
}

// files are the multipart file parts of a name.
func (q *Request) files(name string) []record.Part {
	var out []record.Part
	for _, p := range q.Parts {
		if p.Name == name && isFile(p) {
			out = append(out, p)
		}
	}
	return out
}

func isFile(p record.Part) bool { return p.Filename != "" || p.Blob != "" }

// references are the reference images the request carries: JSON images
// entries, or multipart image and image[] files.
func (q *Request) references() int {
	if q.Multipart() {
		return len(q.files("image")) + len(q.files("image[]"))
	}
	images, _ := q.Body["images"].([]any)
	return len(images)
}
