package record

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"maps"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/gwconform/gwconform/conformance/redact"
)

// RequestKey is what matching compares: the key kind, method, path (with
// its query), model and canonical body digest of a request.
type RequestKey struct {
	Key, Method, Path, Model, Digest string
}

// KeyOf describes a request for matching. keys maps each key kind to the key
// that names it; prefer breaks a tie when one key serves two kinds (the
// kind of the call that sent it). basePath is the base URL's path, which
// recorded paths leave out.
func KeyOf(req *http.Request, body []byte, keys map[string]string, prefer string, bases BasePaths) RequestKey {
	ct := req.Header.Get("Content-Type")
	kind := keyKind(req.Header, keys, prefer)
	return RequestKey{
		Key:    kind,
		Method: req.Method,
		Path:   bases.relPath(req.URL, kind),
		Model:  requestModel(ct, body),
		Digest: digestBody(ct, body),
	}
}

// MatchKey is the key a recorded request is matched by (replay, and the
// judge telling a resent request from a new one).
func (r Request) MatchKey() RequestKey {
	return RequestKey{Key: r.Key, Method: r.Method, Path: r.Path, Model: r.Model, Digest: r.Digest}
}

// differences names what differs between two request keys, for a person:
// "key text, recorded image".
func (k RequestKey) differences(rec RequestKey) []string {
	var out []string
	for _, f := range []struct{ name, got, want string }{
		{"key", k.Key, rec.Key}, {"method", k.Method, rec.Method}, {"path", k.Path, rec.Path},
		{"model", k.Model, rec.Model}, {"body", shortDigest(k.Digest), shortDigest(rec.Digest)},
	} {
		if f.got != f.want {
			out = append(out, f.name+" "+orNone(f.got)+", recorded "+orNone(f.want))
		}
	}
	return out
}

func shortDigest(d string) string {
	if len(d) > len("sha256:")+12 {
		return d[:len("sha256:")+12] + "…"
	}
	return d
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// credentials returns the credential values a request carries: a bearer
// token and an x-api-key (the Anthropic SDKs' default).
func credentials(h http.Header) []string {
	var out []string
	if a := h.Get("Authorization"); a != "" {
		scheme, token, ok := strings.Cut(a, " ")
		if ok && strings.EqualFold(scheme, "Bearer") {
			out = append(out, strings.TrimSpace(token))
		} else {
			out = append(out, a)
		}
	}
	if k := h.Get("X-Api-Key"); k != "" {
		out = append(out, k)
	}
	return out
}

// authOf names how a request sends its credential (Request.Auth): "" for
// none.
func authOf(h http.Header) string {
	if a := h.Get("Authorization"); a != "" {
		if scheme, _, ok := strings.Cut(a, " "); ok && strings.EqualFold(scheme, "Bearer") {
			return AuthBearer
		}
		return AuthOther
	}
	if h.Get("X-Api-Key") != "" {
		return AuthAPIKey
	}
	return ""
}

// keyKind names the kind of the credential a request carries.
func keyKind(h http.Header, keys map[string]string, prefer string) string {
	creds := credentials(h)
	if len(creds) == 0 {
		return KeyNone
	}
	var kinds []string
	for kind, key := range keys {
		if key != "" && slices.Contains(creds, key) {
			kinds = append(kinds, kind)
		}
	}
	switch {
	case len(kinds) == 0:
		return KeyOther
	case slices.Contains(kinds, prefer):
		return prefer
	}
	slices.Sort(kinds)
	return kinds[0]
}

// relPath is a URL's path and query without the base URL's path.
// BasePaths are the paths of the base URLs a run sends to, left out of
// recorded paths: the base's, and each key kind's own (a gateway that
// routes the kinds under prefixes). A recording made under one prefix
// then replays under another.
type BasePaths struct {
	Default string
	Kinds   map[string]string // key kind → the path of its own base
}

// relPath is a request's path without the base path it was sent under:
// its key kind's own, else the default, else another kind's (a negative
// case sends a key to another kind's endpoint, at that kind's base).
func (b BasePaths) relPath(u *url.URL, kind string) string {
	p := u.EscapedPath()
	bases := []string{b.Kinds[kind], b.Default}
	for _, k := range slices.Sorted(maps.Keys(b.Kinds)) {
		bases = append(bases, b.Kinds[k])
	}
	for _, base := range bases {
		base = strings.TrimSuffix(base, "/")
		if base != "" && strings.HasPrefix(p, base+"/") {
			p = strings.TrimPrefix(p, base)
			break
		}
	}
	if u.RawQuery != "" {
		p += "?" + u.RawQuery
	}
	return p
}

// requestModel is the model a body names: its JSON model field, or its
// multipart model part.
func requestModel(contentType string, body []byte) string {
	if parts, ok := parseMultipart(contentType, body); ok {
		for _, p := range parts {
			if p.name == "model" && p.filename == "" {
				return string(p.data)
			}
		}
		return ""
	}
	if m := gjson.GetBytes(body, "model"); m.Type == gjson.String {
		return m.Str
	}
	return ""
}

// digestBody hashes the canonical form of a body: JSON re-encoded with
// sorted keys (so key order and spacing do not matter), multipart parts as
// name, filename, content type and content hash (so the boundary does not
// matter), anything else as is.
func digestBody(contentType string, body []byte) string {
	sum := sha256.Sum256(canonicalBody(contentType, body))
	return "sha256:" + hex.EncodeToString(sum[:])
}

func canonicalBody(contentType string, body []byte) []byte {
	if len(body) == 0 {
		return nil
	}
	if parts, ok := parseMultipart(contentType, body); ok {
		cs := make([]canonPart, len(parts))
		for i, p := range parts {
			sum := sha256.Sum256(p.data)
			cs[i] = canonPart{Name: p.name, Filename: p.filename, ContentType: p.contentType, SHA256: hex.EncodeToString(sum[:])}
		}
		return multipartCanon(cs)
	}
	if c, ok := canonicalJSON(body); ok {
		return append([]byte("json:"), c...)
	}
	return append([]byte("raw:"), body...)
}

// canonPart is a multipart part in the canonical form: its names and the
// hash of its bytes, not its boundary.
type canonPart struct {
	Name        string `json:"name"`
	Filename    string `json:"filename,omitempty"`
	ContentType string `json:"content_type,omitempty"`
	SHA256      string `json:"sha256"`
}

func multipartCanon(cs []canonPart) []byte {
	b, _ := json.Marshal(cs)
	return append([]byte("multipart:"), b...)
}

func multipartDigest(cs []canonPart) string {
	sum := sha256.Sum256(multipartCanon(cs))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// canonicalJSON re-encodes a body that is one JSON value with sorted keys;
// ok is false when it is not.
func canonicalJSON(body []byte) ([]byte, bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return nil, false
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return nil, false
	}
	return b.Bytes(), true
}

// formPart is one parsed multipart part.
type formPart struct {
	name, filename, contentType string
	data                        []byte
}

// parseMultipart reads a multipart/form-data body whole; ok is false when
// the body is not one.
func parseMultipart(contentType string, body []byte) ([]formPart, bool) {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return nil, false
	}
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	var parts []formPart
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			return parts, true
		}
		if err != nil {
			return nil, false
		}
		data, err := io.ReadAll(p)
		if err != nil {
			return nil, false
		}
		parts = append(parts, formPart{name: p.FormName(), filename: p.FileName(), contentType: p.Header.Get("Content-Type"), data: data})
	}
}

// redactor replaces exact secrets: the run's keys and secret header
// values, and the credentials of the request at hand.
type redactor []string

func (r redactor) text(s string) string { return redact.Secrets(s, r) }

// bytes replaces exact secrets in bytes that are not text: a key must not
// reach a recording even inside a binary body.
func (r redactor) bytes(b []byte) []byte {
	for _, s := range r {
		if s != "" {
			b = bytes.ReplaceAll(b, []byte(s), []byte(redact.Marker))
		}
	}
	return b
}

// Headers a request keeps out of the recording: credentials (the key kind
// says which was sent), and what the transport adds or a relay appends.
var droppedRequestHeaders = map[string]bool{
	"Authorization": true, "X-Api-Key": true, "Proxy-Authorization": true, "Cookie": true,
	"Content-Length": true, "Accept-Encoding": true, "Connection": true,
	"X-Forwarded-For": true, "X-Forwarded-Host": true, "X-Forwarded-Proto": true, "Forwarded": true,
}

// Response headers that differ on every answer or belong to the
// connection: kept, they would make two recordings of the same answer
// differ. Set-Cookie is a credential.
var droppedResponseHeaders = map[string]bool{
	"Date": true, "Content-Length": true, "Transfer-Encoding": true, "Connection": true, "Keep-Alive": true,
	"Set-Cookie": true, "Alt-Svc": true, "Server-Timing": true,
}

// keepHeaders copies a header without the dropped names, redacted: exact
// secrets, credential patterns, and the whole value of a header whose name
// says it is secret.
func keepHeaders(h http.Header, drop map[string]bool, red redactor) map[string][]string {
	out := map[string][]string{}
	for name, vs := range h {
		name = http.CanonicalHeaderKey(name)
		if drop[name] {
			continue
		}
		for _, v := range vs {
			if redact.SecretHeader(name) {
				v = redact.Marker
			}
			out[name] = append(out[name], redact.Credentials(red.text(v)))
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
