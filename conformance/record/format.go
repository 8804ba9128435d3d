// Package record keeps what a gateway answered, so that it can be judged
// again without paying, handed to the gateway's operators, or served by a
// stand-in that answers exactly what the real gateway sent.
//
// A recording is a directory:
//
//	recording.json                          Meta: what was recorded, from where, with which key kinds
//	exchanges/<feature>/<case>--<model>.json one Exchange per case × model of `run --record`
//	exchanges/relay/<endpoint>/<digest>.json one Exchange per distinct request relayed by `serve --upstream --record`
//	blobs/<sha256>.<ext>                    large base64 payloads (images), decoded, stored once
//
// Every file is JSON of a versioned format; exchange.schema.json and
// recording.schema.json, beside this file, are their JSON Schemas.
//
// What is kept, and why:
//   - the request with its key kind, never its key: Authorization and
//     x-api-key are dropped, and every exact secret the run knows (keys,
//     secret header values) is replaced by redact.Marker wherever it
//     appears; header values are also redacted by pattern
//     (redact.Credentials). Bodies are not redacted by pattern: a pattern
//     rewrites ordinary text ("basic shapes"), and a replay must judge the
//     words the gateway sent.
//   - the response status, its headers without the volatile ones (Date,
//     Content-Length, ...) and its body; a stream as its events, each with
//     its arrival offset, so that event boundaries and timing survive;
//   - the send and receive times, which the checks of a replay judge
//     "created" against, as the live run did.
//
// A Tap (an http.RoundTripper) captures the exchanges of a call while the
// engine runs it; Replay answers a call from its recording with no
// network; Index matches any client's request to the recorded exchanges
// for `serve --replay`.
package record

import (
	"encoding/json"
	"time"
)

// Version is the format of recording.json and of every exchange file.
// Bump it on any change that is not a pure addition; readers refuse
// versions they do not know.
const Version = 1

// File and directory names inside a recording.
const (
	MetaFile     = "recording.json"
	ExchangesDir = "exchanges"
	BlobsDir     = "blobs"
	// relayDir holds the exchanges serve --upstream --record relays.
	relayDir = "relay"
)

// Key kinds of a request beyond the engine's four (text, messages, image,
// alt): no credential at all, or one that is none of the configured keys
// (an invalid key, a key of someone else's).
const (
	KeyNone  = "none"
	KeyOther = "other"
)

// How a request sent its credential (Request.Auth): the judge of a
// client's traffic holds it to spec 5.1's bearer scheme.
const (
	AuthBearer = "bearer"    // Authorization: Bearer <key>
	AuthAPIKey = "x-api-key" // the Anthropic SDKs' default header
	AuthOther  = "other"     // Authorization with another scheme
)

// Sources of a recording.
const (
	SourceRun   = "run"   // gwconform run --record
	SourceRelay = "relay" // gwconform serve --upstream URL --record
)

// Meta is recording.json: what the recording holds and where it came from.
type Meta struct {
	Version int       `json:"version"`
	Source  string    `json:"source"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	// SuiteVersion and CatalogHash say which gwconform and which catalog
	// recorded a run (empty for a relay).
	SuiteVersion string `json:"suite_version,omitempty"`
	CatalogHash  string `json:"catalog_hash,omitempty"`
	// BaseURL is the gateway, without userinfo, query or fragment, and
	// KindBaseURLs the key kinds sent to a base of their own.
	BaseURL      string            `json:"base_url,omitempty"`
	KindBaseURLs map[string]string `json:"kind_base_urls,omitempty"`
	// PublicImageURL is the image URL the URL-reference case rendered into
	// its request: a replay renders it again, so the request is unchanged.
	PublicImageURL string `json:"public_image_url,omitempty"`
	// Keys lists the key kinds configured when recording (never the keys):
	// a replay plans from them, so it needs no key. Rejected holds those
	// the gateway refused in the preflight, with what it answered: a
	// replay skips their cases as the recorded run did.
	Keys     []string          `json:"keys"`
	Rejected map[string]string `json:"rejected,omitempty"`
	// ModelNames are the gateway's ids for the spec's that the recorded
	// run sent (plan.ModelNames, kept as the manifest keeps them): a
	// replay renders the same requests. Absent: the spec's ids.
	ModelNames json.RawMessage `json:"model_names,omitempty"`
}

// Exchange is one exchange file: the rounds of one case × model of a run
// (its variants, retries and extra model lists, in the order they were
// sent), or the rounds a relay saw for one distinct request.
type Exchange struct {
	Version int `json:"version"`
	// Call names the case × model that made the rounds; nil for relayed
	// traffic.
	Call   *Call   `json:"call,omitempty"`
	Rounds []Round `json:"rounds"`
}

// Call names one case × model of a run.
type Call struct {
	Case    string `json:"case"`
	Feature string `json:"feature"`
	Model   string `json:"model"`
	// Key is the key kind the case uses.
	Key string `json:"key,omitempty"`
}

// Round is one HTTP request and what came back.
type Round struct {
	// Sent is when the request was handed to the network.
	Sent    time.Time `json:"sent"`
	Request Request   `json:"request"`
	// Response is nil when no response came (Error says why).
	Response *Response `json:"response,omitempty"`
	// Error is the transport error that ended the round: before any
	// response, or while reading the body.
	Error string `json:"error,omitempty"`
	// Cut says the client itself ended the round (its timeout, a stall
	// limit, an interrupted run): what follows was never seen, and a replay
	// has nothing to judge.
	Cut string `json:"cut,omitempty"`
	// OverCap, when set, is the cap (bytes, Tap.Cap) the round's bodies
	// passed together: the client got them whole, the recording stops at
	// the cap, and the round is neither judged nor answered again.
	OverCap int64 `json:"over_cap,omitempty"`
}

// Request is a request as sent, redacted.
type Request struct {
	Method string `json:"method"`
	// Path is the path and query, relative to the gateway's base URL.
	Path string `json:"path"`
	// Key is the kind of the credential sent: a key kind, KeyNone or KeyOther.
	Key string `json:"key"`
	// Auth is how the credential was sent (the credential never is): one
	// of the Auth values, absent when none was (Key is then KeyNone).
	Auth string `json:"auth,omitempty"`
	// Model is the body's model field, when it has one.
	Model  string              `json:"model,omitempty"`
	Header map[string][]string `json:"header,omitempty"`
	Body   *Body               `json:"body,omitempty"`
	// Digest is the SHA-256 of the canonical body (JSON with sorted keys,
	// multipart parts without their boundary): what matching compares.
	Digest string `json:"digest"`
}

// Response is what the gateway answered.
type Response struct {
	// Received is when the response's headers arrived.
	Received time.Time           `json:"received"`
	Status   int                 `json:"status"`
	Header   map[string][]string `json:"header,omitempty"`
	// Body is the body of a response that is not an event stream.
	Body *Body `json:"body,omitempty"`
	// Events are the events of a text/event-stream response, in order.
	Events []Event `json:"events,omitempty"`
	// EndedMS is when the body ended (or was closed), after Sent.
	EndedMS int64 `json:"ended_ms"`
	// Unread says the client closed the body before its end: the rest was
	// never received (an error body read only in part).
	Unread bool `json:"unread,omitempty"`
}

// Event is one server-sent event as it arrived.
type Event struct {
	// OffsetMS is when its last byte arrived, after the request was sent.
	OffsetMS int64 `json:"offset_ms"`
	// Text is the event's raw lines with the blank line that ends it (an
	// unterminated last event has none); large base64 values are blob
	// references (Blob).
	Text string `json:"text"`
}

// Body is a request or response body in its most readable faithful form:
// JSON (whitespace aside), text, multipart parts, or base64 bytes. In JSON
// and text, each large base64 value is replaced by a blob reference,
// "gwconform-blob:<sha256>.<ext>", and its bytes are in blobs/.
type Body struct {
	// Bytes is the body's size as sent or received.
	Bytes     int             `json:"bytes"`
	JSON      json.RawMessage `json:"json,omitempty"`
	Text      string          `json:"text,omitempty"`
	Base64    string          `json:"base64,omitempty"`
	Multipart []Part          `json:"multipart,omitempty"`
}

// Part is one part of a multipart/form-data body: a value, or a file whose
// bytes are a blob.
type Part struct {
	Name        string `json:"name"`
	Filename    string `json:"filename,omitempty"`
	ContentType string `json:"content_type,omitempty"`
	Value       string `json:"value,omitempty"`
	Blob        string `json:"blob,omitempty"`
	Bytes       int    `json:"bytes"`
}
