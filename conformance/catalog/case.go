// Package catalog loads the YAML case files, the JSON Schemas and the fixtures
// into one validated, immutable Catalog: the "load" stage of the data flow.
//
// Everything a case may say is declared here; the loader rejects anything else
// with file:line:col.
package catalog

import (
	"errors"
	"reflect"

	"github.com/goccy/go-yaml/ast"

	"github.com/gwconform/gwconform/conformance/results"
)

// KeyKind names the capability a key grants (spec section 5).
type KeyKind string

const (
	KeyText     KeyKind = "text"
	KeyMessages KeyKind = "messages"
	KeyImage    KeyKind = "image"
	KeyAlt      KeyKind = "alt"
)

// KeyKinds lists every key kind.
var KeyKinds = []KeyKind{KeyText, KeyMessages, KeyImage, KeyAlt}

// Case is one declared check: a request, sent once per model, and what the
// answer must look like.
type Case struct {
	ID      string       `yaml:"id"`
	Feature string       `yaml:"feature"`
	Tier    results.Tier `yaml:"tier"`
	// Refs are the requirement rows this case checks (SpecRef), as written
	// in `spec:`; the loader rejects one that cases/requirements does not list.
	Refs SpecRefs `yaml:"spec"`
	// Spec is Refs as one string, e.g. "4.5/rule-2, 7/edit-file-id": the
	// results record keeps spec a string.
	Spec        string   `yaml:"-"`
	Requirement string   `yaml:"requirement"` // the sentence of the spec (or client rule) this case checks
	Why         string   `yaml:"why"`         // strict/explore: why it matters
	Key         KeyKind  `yaml:"key"`
	Models      []string `yaml:"models"`
	// Requires names preconditions; a missing one makes the case skip.
	// Known: public_image_url.
	Requires []string `yaml:"requires"`
	Request  Request  `yaml:"request"`
	Expect   Expect   `yaml:"expect"`

	// Where the case was declared, for messages: "cases/chat.yaml:12:5".
	// A case generated from an explore domain has the domain's position.
	Pos string `yaml:"-"`
	// Params is the row of an explore domain this case was generated from:
	// parameter → value as written, omitted parameters absent (reports build
	// a capability map from it). Nil for a case written out.
	Params map[string]string `yaml:"-"`
}

// Auth selects how the request authenticates.
type Auth string

const (
	AuthKey     Auth = ""        // Authorization: Bearer <key of Case.Key> (default)
	AuthNone    Auth = "none"    // no Authorization header
	AuthInvalid Auth = "invalid" // a key that cannot be valid
)

// Request is the HTTP request of a case. Exactly one of JSON, Multipart, Raw
// (or none, for GET) is set. String values anywhere inside JSON, Multipart
// values, Path and Raw are Go templates (see Template).
type Request struct {
	Method  string            `yaml:"method"`
	Path    string            `yaml:"path"`
	Headers map[string]string `yaml:"headers"`
	Auth    Auth              `yaml:"auth"`
	// JSON is sent with Content-Type: application/json.
	JSON any `yaml:"json"`
	// Multipart fields in order. In YAML, `multipart:` is a mapping of field
	// name to a string or a list of strings (a list repeats the field, as
	// image[] does); a value starting with "@" names a fixture file sent as a
	// file part. The loader decodes it by hand (order matters), hence "-".
	// Non-nil (possibly empty) when the case gave a multipart body.
	Multipart []FormField `yaml:"-"`
	// Raw is sent as is, with Headers' Content-Type (malformed-input cases).
	Raw string `yaml:"raw"`
}

// FormField is one multipart part.
type FormField struct {
	Name  string
	Value string // text value, or empty when File is set
	File  string // fixture file name when the value was "@name"
}

// Expect is what the answer must show. Every set field is a check.
type Expect struct {
	// Status is the exact HTTP status expected.
	Status int `yaml:"status"`
	// Schema names a JSON Schema in schemas/ (without .json) for the body.
	Schema string `yaml:"schema"`
	// JSON maps gjson paths to an expected value or a Matcher.
	JSON map[string]Matcher `yaml:"json"`
	// Images checks every image of a non-streaming image result.
	Images *ImageExpect `yaml:"images"`
	// SSE makes the body a stream of the named protocol.
	SSE *SSEExpect `yaml:"sse"`
}

// Matcher is one expectation on a value read by gjson path. In YAML it is
// either a scalar (equality) or a mapping with exactly the operators below.
type Matcher struct {
	Equals   any      `yaml:"eq"`
	Exists   *bool    `yaml:"exists"`
	Type     string   `yaml:"type"` // string, number, integer, boolean, array, object, null
	OneOf    []any    `yaml:"one_of"`
	Regex    string   `yaml:"regex"`
	Min      *float64 `yaml:"min"`
	Max      *float64 `yaml:"max"`
	NotEmpty bool     `yaml:"not_empty"`
	Contains string   `yaml:"contains"`

	HasEquals bool `yaml:"-"` // true when Equals was given (it may be null)
}

// UnmarshalYAML decodes a matcher from a goccy/go-yaml node: a scalar is
// equality, a mapping holds operators. The loader uses the same code, so both
// paths accept and reject the same input; only null differs, because
// goccy/go-yaml stores the zero value for null without calling this method
// (the loader gives equality with null).
func (m *Matcher) UnmarshalYAML(n ast.Node) error {
	var ds Diagnostics
	d := newDecoder("", &ds, nil)
	d.collectAnchors(n)
	d.decode(n, reflect.ValueOf(m).Elem(), "matcher")
	if len(ds) > 0 {
		return errors.New(ds[0].Message)
	}
	return nil
}

// ImageExpect checks decoded images.
type ImageExpect struct {
	Format string `yaml:"format"` // png, jpeg, webp
	Size   string `yaml:"size"`   // WxH of every image
	Count  int    `yaml:"count"`  // number of images in data (n)
	Alpha  *bool  `yaml:"alpha"`  // true: real transparency present; false: fully opaque
}

// Protocol names the grammar of an event stream (spec 6); the stream
// checks (package streams) know one grammar per protocol.
type Protocol string

// SSE protocols.
const (
	ProtocolChat            Protocol = "chat"
	ProtocolMessages        Protocol = "messages"
	ProtocolImageGeneration Protocol = "image_generation"
	ProtocolImageEdit       Protocol = "image_edit"
	// ProtocolResponses is the public Responses stream shape; spec 4.6 does
	// not show it, so only explore-tier cases use it.
	ProtocolResponses Protocol = "responses"
)

// IsImage reports whether p is one of the two image stream protocols.
func (p Protocol) IsImage() bool { return p == ProtocolImageGeneration || p == ProtocolImageEdit }

// SSEExpect checks an event stream.
type SSEExpect struct {
	Protocol    Protocol     `yaml:"protocol"`
	MaxPreviews *int         `yaml:"max_previews"` // images: previews at most this many
	StopReason  string       `yaml:"stop_reason"`  // messages: expected final stop_reason
	Images      *ImageExpect `yaml:"images"`       // images: checks on the completed image
	MinText     int          `yaml:"min_text"`     // chat/messages: at least this many characters of text
	// Strict also applies the protocol's strict-tier rules (from the official
	// clients, not the spec); set only on strict-tier cases.
	Strict bool `yaml:"strict"`
}
