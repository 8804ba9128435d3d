// Package catalog loads the YAML case files, the JSON Schemas and the fixtures
// into one validated, immutable Catalog: the "load" stage of the data flow.
//
// Everything a case may say is declared here; the loader rejects anything else
// with file:line:col.
package catalog

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/gwconform/gwconform/conformance/vocab"
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
	ID      string     `yaml:"id"`
	Feature string     `yaml:"feature"`
	Tier    vocab.Tier `yaml:"tier"`
	// Refs are the requirement rows this case checks (SpecRef), as written
	// in `spec:`; the loader rejects one that cases/requirements does not list.
	Refs SpecRefs `yaml:"spec"`
	// Spec is Refs as one string, e.g. "4.5/rule-2, 7/edit-file-id": the
	// results record keeps spec a string.
	Spec string `yaml:"-"`
	// Requirement is what the case checks, in words: the sentences of the
	// rows of Refs, in order, then what the case's own `requirement:` adds
	// to them (optional in YAML: the words the rows do not say). Every
	// consumer (results, reports, show) reads it.
	Requirement string   `yaml:"requirement"`
	Why         string   `yaml:"why"` // strict/explore: why it matters
	Key         KeyKind  `yaml:"key"`
	Models      []string `yaml:"models"`
	// Requires names preconditions; a missing one makes the case skip.
	// Known: public_image_url.
	Requires []string `yaml:"requires"`
	// Control (negative cases, which must name one) is the id of a verified
	// case on the same endpoint that sends the request as it would be
	// without its defect, for each of this case's models: the image key's
	// generation for a key-permission refusal, a listed model's message for
	// a retired model, the same request with its model for a missing model.
	// Unless the gateway serves the control in the same run, the refusal
	// is inconclusive (results.Settle): an endpoint that refuses everything
	// refuses the defect too.
	Control string  `yaml:"control"`
	Request Request `yaml:"request"`
	// Variants are alternative JSON bodies for a shape the spec does not
	// show (4.3: "the exact shape of a content array for image input: not
	// shown"): they are sent in order until the gateway accepts one, and
	// that one is judged. A case with variants sends no request.json.
	Variants []Variant `yaml:"variants"`
	Expect   Expect    `yaml:"expect"`

	// Where the case was declared, for messages: "cases/chat.yaml:12:5".
	// A case generated from an explore domain has the domain's position.
	Pos string `yaml:"-"`
	// Params is the row of an explore domain this case was generated from:
	// parameter → value as written, omitted parameters absent (reports build
	// a capability map from it). Nil for a case written out.
	Params map[string]string `yaml:"-"`
}

// Variant is one named JSON body of a case with variants.
type Variant struct {
	Name string `yaml:"name"`
	JSON any    `yaml:"json"`
}

// WithVariant returns a copy of the case that sends the variant's body.
func (c *Case) WithVariant(v Variant) *Case {
	cp := *c
	cp.Request.JSON = v.JSON
	return &cp
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
	// Status is the exact HTTP status expected; StatusIn a set of them, for
	// refusals whose status the spec does not show. Exactly one is given.
	Status   int        `yaml:"status"`
	StatusIn *StatusSet `yaml:"status_in"`
	// Schema names a JSON Schema in schemas/ (without .json) for the body.
	Schema string `yaml:"schema"`
	// JSON maps gjson paths to an expected value or a Matcher. PathText
	// names the generated text the engine derives instead of a path.
	JSON map[string]Matcher `yaml:"json"`
	// Images checks every image of a non-streaming image result.
	Images *ImageExpect `yaml:"images"`
	// SSE makes the body a stream of the named protocol.
	SSE *SSEExpect `yaml:"sse"`
	// DiffersFrom (GET /v1/models only) demands that the list differ from
	// the list of each named key kind that is configured (spec 2.1: "the
	// list differs per key"); one more GET /v1/models per such key.
	DiffersFrom []KeyKind `yaml:"differs_from"`
	// Listed (GET /v1/models only) demands that the list name the model
	// under test, under the gateway's id for it (spec 2.1 names the image
	// key's list, section 1 the alternative key's).
	Listed bool `yaml:"listed"`
}

// StatusSet is classes of statuses less some, e.g. any 4xx or 5xx except
// 408 and 429: "refused" where the spec states a refusal but shows no
// status (5.2: whatever serves no image), and a timeout or a throttle is no
// refusal.
type StatusSet struct {
	Classes []string `yaml:"class"` // 1xx .. 5xx
	Except  []int    `yaml:"except"`
}

// Has reports whether code is in the set.
func (s StatusSet) Has(code int) bool {
	in := slices.ContainsFunc(s.Classes, func(c string) bool { return len(c) == 3 && code/100 == int(c[0]-'0') })
	return in && !slices.Contains(s.Except, code)
}

func (s StatusSet) String() string {
	classes := strings.Join(s.Classes, " or ")
	if len(s.Except) == 0 {
		return "any " + classes
	}
	return fmt.Sprintf("any %s except %v", classes, s.Except)
}

// Accepts reports whether an answer's status is the expected one, exactly.
// The engine judges a case's answer with Case.Accepts, which reads a
// success by the case's tier.
func (e Expect) Accepts(code int) bool {
	if e.StatusIn != nil {
		return e.StatusIn.Has(code)
	}
	return code == e.Status
}

// successShown reports whether the case expects a success: the spec shows
// success, never its code (2.2 says "200-class"), so outside the strict tier
// any 2xx is one.
func (c *Case) successShown() bool {
	return c.Tier != vocab.TierStrict && c.Expect.StatusIn == nil && c.Expect.Status/100 == 2
}

// Accepts reports whether an answer's status is the one the case expects:
// any 2xx for a success in the verified, negative and explore tiers, the
// exact status in the strict tier (which reads success as the 200 the
// official clients see).
func (c *Case) Accepts(code int) bool {
	if c.successShown() {
		return code/100 == 2
	}
	return c.Expect.Accepts(code)
}

// WantStatus describes the status the case expects, for a reason.
func (c *Case) WantStatus() string {
	if c.successShown() {
		return "2xx"
	}
	return c.Expect.WantStatus()
}

// WantStatus describes the expected status for a reason.
func (e Expect) WantStatus() string {
	if e.StatusIn != nil {
		return e.StatusIn.String()
	}
	return strconv.Itoa(e.Status)
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
	// Model compares with the model the request names: "requested" is the
	// id as sent or a spelling of the same model (modelid.Same: a vendor
	// prefix, a snapshot suffix, the undated alias of a dated id); "exact"
	// is the id as sent. Every chat completion and message is judged
	// "requested" without asking (2.3, 2.4: "model used").
	Model string `yaml:"model"`
	// UnixSeconds judges a Unix time in seconds against the exchange's own
	// send and receive times (never the judging clock, so a later re-check
	// of recorded traffic agrees): "plausible" is an integer, not zero, not
	// milliseconds, not after the answer plus a day; a duration ("15m") also
	// requires it within that much of the exchange.
	UnixSeconds string `yaml:"unix_seconds"`
	// IfPresent skips the other operators when the path is absent: for a
	// field the spec does not show but constrains when it is there.
	IfPresent bool `yaml:"if_present"`

	HasEquals bool `yaml:"-"` // true when Equals was given (it may be null)
}

// Values of Matcher.Model.
const (
	ModelRequested = "requested"
	ModelExact     = "exact"
)

// UnixSecondsPlausible is the UnixSeconds value without a window.
const UnixSecondsPlausible = "plausible"

// PathText is the expect.json key of the generated text, which no gjson path
// reads as a client must: a message's `type: text` blocks joined (2.4: "read
// text from blocks whose type is text and join their text"), or a chat
// completion's choices[0].message.content (2.3).
const PathText = "$text"

// TextPaths are the endpoints whose JSON answer has a PathText.
var TextPaths = []string{"/v1/chat/completions", "/v1/messages"}

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
	Alpha  *bool  `yaml:"alpha"`  // false: fully opaque (true is refused: say how much with Transparent)
	// Transparent demands real transparency (spec 4.5: "a real alpha
	// channel"): a transparent region, not one pixel at alpha 254.
	Transparent *Transparency `yaml:"transparent"`
}

// Transparency is a stated threshold of real transparency: at least
// MinShare of the pixels have an alpha below BelowAlpha (8-bit).
type Transparency struct {
	MinShare   float64 `yaml:"min_share"`
	BelowAlpha int     `yaml:"below_alpha"`
}

func (t Transparency) String() string {
	return fmt.Sprintf("at least %g%% of pixels below alpha %d", t.MinShare*100, t.BelowAlpha)
}

// DefaultTransparency is the threshold where no case states one: a result
// whose background field says transparent (2.2), and explore rows.
var DefaultTransparency = Transparency{MinShare: 0.01, BelowAlpha: 128}

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
func (p Protocol) IsImage() bool { return protocols[p].image }

// SSEExpect checks an event stream.
type SSEExpect struct {
	Protocol     Protocol     `yaml:"protocol"`
	MaxPreviews  *int         `yaml:"max_previews"`  // images: previews at most this many
	StopReason   *Matcher     `yaml:"stop_reason"`   // messages: the final stop_reason
	FinishReason *Matcher     `yaml:"finish_reason"` // chat: the last finish_reason
	Images       *ImageExpect `yaml:"images"`        // images: checks on the completed image
	MinText      int          `yaml:"min_text"`      // chat/messages: at least this many characters of text
	// Strict also applies the protocol's strict-tier rules (from the official
	// clients, not the spec); set only on strict-tier cases.
	Strict bool `yaml:"strict"`
}
