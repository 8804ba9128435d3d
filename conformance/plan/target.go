package plan

import (
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/redact"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// Target is the gateway under test and the keys to reach it with.
type Target struct {
	BaseURL string
	// KindBaseURLs send a key kind's requests to another base than
	// BaseURL: a gateway that routes its families under prefixes
	// (/openai, /anthropic). The spec has one {base_url}; a run that uses
	// several says so in every report.
	KindBaseURLs map[catalog.KeyKind]string
	// Offers are the feature globs the gateway declares it serves ("!glob"
	// excludes); empty offers everything. A feature not offered is planned
	// as a skip (vocab.CheckNotOffered) and nothing is sent for it.
	Offers []string
	// Names are the gateway's ids for the spec's (--model-map, and the
	// keys' lists as the preflight read them); the zero value sends the
	// spec's ids.
	Names ModelNames
	// Keys maps each capability to its bearer key. A missing key makes the
	// cases that need it skip.
	Keys map[catalog.KeyKind]string
	// Rejected holds the key kinds the gateway refused in the preflight,
	// with what it answered; their cases are skipped as "key rejected".
	Rejected map[catalog.KeyKind]string
	// PublicImageURL is an HTTPS PNG the gateway can fetch (URL-reference case).
	PublicImageURL string
	// Client sends the requests; nil means NewClient's with no private CA
	// (Options.Timeout bounds each request, not the client).
	Client *http.Client
	// Headers go with every request, KeyHeaders with the requests made with
	// that key kind: what a relay routes by, or a proxy's token. The
	// missing- and invalid-key cases send them too: only Authorization
	// differs there. Neither may name Authorization (CheckHeaders).
	Headers    http.Header
	KeyHeaders map[catalog.KeyKind]http.Header
	// HeaderLines are the same headers as they were given, per key kind
	// ("" for every request), a ${NAME} reference left unread: what a
	// reproduction writes, so it reads the variable as the run did.
	HeaderLines map[catalog.KeyKind][]string
	// SecretValues are header values to redact like keys: values taken
	// from the environment with ${NAME}, of redact.MinSecretLen or more.
	SecretValues []string
}

// KindBaseNames are the kinds' own bases keyed by kind name, as records
// keep them (manifest.json, a recording's meta, report.json); nil when
// every kind is sent to BaseURL.
func (t Target) KindBaseNames() map[string]string {
	var out map[string]string
	for k, b := range t.KindBaseURLs {
		if b == "" {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[string(k)] = b
	}
	return out
}

// SetKindBases gives t the kinds' own bases a record keeps (KindBaseNames).
func (t *Target) SetKindBases(named map[string]string) {
	t.KindBaseURLs = nil
	for k, b := range named {
		if t.KindBaseURLs == nil {
			t.KindBaseURLs = map[catalog.KeyKind]string{}
		}
		t.KindBaseURLs[catalog.KeyKind(k)] = b
	}
}

// BaseFor is the base URL the requests of a key kind go to.
func (t Target) BaseFor(kind catalog.KeyKind) string {
	if b := t.KindBaseURLs[kind]; b != "" {
		return b
	}
	return t.BaseURL
}

// BaseForPath is the base URL a request of a key kind to path goes to: its
// kind's, unless the path is an endpoint of other kinds only (a negative
// case sending the messages key to an image endpoint), whose base serves
// it. A gateway routed under prefixes serves an endpoint under one prefix,
// whatever key is sent there.
func (t Target) BaseForPath(kind catalog.KeyKind, path string) string {
	return t.BaseFor(endpointKind(kind, path))
}

// endpointKind is the key kind whose endpoint a request of kind to path
// calls: kind's own, unless the path is an endpoint of other kinds only.
func endpointKind(kind catalog.KeyKind, path string) catalog.KeyKind {
	for _, e := range endpointKinds {
		if strings.HasPrefix(path, e.prefix) && !slices.Contains(e.kinds, kind) {
			return e.kinds[0]
		}
	}
	return kind
}

// endpointKinds are the key kinds whose endpoints each path family is
// (spec 4, 5.2); /v1/models serves every kind.
var endpointKinds = []struct {
	prefix string
	kinds  []catalog.KeyKind
}{
	{"/v1/chat/", []catalog.KeyKind{catalog.KeyText}},
	{"/v1/responses", []catalog.KeyKind{catalog.KeyText}},
	{"/v1/messages", []catalog.KeyKind{catalog.KeyMessages, catalog.KeyAlt}},
	{"/v1/images/", []catalog.KeyKind{catalog.KeyImage}},
}

// Usable reports whether a key of that kind is configured and was not
// rejected: the plan counts, and execute makes, the model lists of exactly
// these kinds.
func (t Target) Usable(kind catalog.KeyKind) bool {
	return t.Keys[kind] != "" && t.Rejected[kind] == ""
}

// UsedKinds are the key kinds a selection makes calls with: the keys of
// its cases the gateway offers, the kinds whose lists name their models,
// and the kinds their lists are compared with (differs_from). A key no
// selected case uses is asked nothing, not even its model list: a relay
// may refuse it for want of a header the run was not given. The model
// globs are left out: they may name the gateway's ids, which only the
// lists tell.
func UsedKinds(cat *catalog.Catalog, t Target, sel Selection) []catalog.KeyKind {
	sel.Models, sel.Shard, sel.MaxCalls, sel.MaxCost = nil, Shard{}, 0, 0
	calls, err := Make(cat, t, sel)
	if err != nil {
		return nil
	}
	home := homeKinds(cat)
	used := map[catalog.KeyKind]bool{}
	for _, c := range calls {
		if c.Skip != nil && c.Skip.Check == vocab.CheckNotOffered {
			continue
		}
		used[c.Case.Key] = true
		used[home[c.Model]] = true
		for _, k := range c.Case.Expect.DiffersFrom {
			used[k] = true
		}
	}
	var out []catalog.KeyKind
	for _, k := range catalog.KeyKinds {
		if used[k] {
			out = append(out, k)
		}
	}
	return out
}

// Offered reports whether the gateway declares it serves a feature.
func (t Target) Offered(feature string) bool { return matchAny(t.Offers, feature) }

// SetHeaders adds the target's headers for a request of that key kind to
// path ("" for a request made with no key kind, such as the preflight
// without keys): every request's, and those of the kind whose endpoint it
// calls, as its base is (BaseForPath). A relay that routes by a header
// (a provider name) routes the messages key sent to an image endpoint as
// an image request; the key alone makes it a refusal.
func (t Target) SetHeaders(h http.Header, kind catalog.KeyKind, path string) {
	for name, vs := range t.Headers {
		h[name] = append([]string(nil), vs...)
	}
	for name, vs := range t.KeyHeaders[endpointKind(kind, path)] {
		h[name] = append([]string(nil), vs...)
	}
}

// RecordedHeaderLines are HeaderLines as records keep them (manifest.json),
// keyed by kind name ("" for every request), each line as a reproduction
// writes it (replayLine); nil when no header was given.
func (t Target) RecordedHeaderLines() map[string][]string {
	var out map[string][]string
	for kind, lines := range t.HeaderLines {
		if out == nil {
			out = map[string][]string{}
		}
		for _, line := range lines {
			out[string(kind)] = append(out[string(kind)], replayLine(line))
		}
	}
	return out
}

// SetHeaderLines gives t the header lines a record keeps
// (RecordedHeaderLines).
func (t *Target) SetHeaderLines(named map[string][]string) {
	t.HeaderLines = nil
	for kind, lines := range named {
		if t.HeaderLines == nil {
			t.HeaderLines = map[catalog.KeyKind][]string{}
		}
		t.HeaderLines[catalog.KeyKind(kind)] = slices.Clone(lines)
	}
}

// ReplayHeaders are the header lines a reproduction of a request of that
// key kind to path sends, as SetHeaders sends them (replayLine).
func (t Target) ReplayHeaders(kind catalog.KeyKind, path string) []string {
	var out []string
	for _, line := range t.HeaderLines[""] {
		out = append(out, replayLine(line))
	}
	if kind != "" {
		for _, line := range t.HeaderLines[endpointKind(kind, path)] {
			out = append(out, replayLine(line))
		}
	}
	return out
}

// replayLine is a header line as a reproduction writes it: a value given
// as a variable stays its ${NAME}; a literal value of a header whose name
// says it is a secret is redacted, since no command may carry it.
func replayLine(line string) string {
	name, value, _ := strings.Cut(line, ": ")
	if redact.SecretHeader(name) && !strings.Contains(value, "${") {
		return name + ": " + redact.Marker
	}
	return line
}

// HeaderVariables names the variables go test reads headers from, one
// "Name: value" a line: every request, and each key kind's.
var HeaderVariables = map[catalog.KeyKind]string{
	"":                  "GWCONFORM_HEADERS",
	catalog.KeyText:     "GWCONFORM_TEXT_HEADERS",
	catalog.KeyMessages: "GWCONFORM_MESSAGES_HEADERS",
	catalog.KeyImage:    "GWCONFORM_IMAGE_HEADERS",
	catalog.KeyAlt:      "GWCONFORM_ALT_HEADERS",
}

// ParseHeader reads one "Name: value" header. A value "${NAME}" (or one
// holding such references) is read from the environment by getenv, and
// then counts as a secret: it is returned in secret for redaction.
func ParseHeader(s string, getenv func(string) string) (name, value string, secret bool, err error) {
	name, value, ok := strings.Cut(s, ":")
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	if !ok || name == "" || strings.ContainsAny(name, " \t\r\n") {
		return "", "", false, fmt.Errorf("header %q: want 'Name: value'", s)
	}
	if strings.EqualFold(name, "Authorization") {
		return "", "", false, fmt.Errorf("header %q: Authorization comes from the keys; the missing- and invalid-key cases change only it", name)
	}
	if strings.Contains(value, "${") {
		var missing []string
		value = os.Expand(value, func(v string) string {
			x := getenv(v)
			if x == "" {
				missing = append(missing, v)
			}
			return x
		})
		if len(missing) > 0 {
			return "", "", false, fmt.Errorf("header %s: variable %s is not set", name, strings.Join(missing, ", "))
		}
		secret = true
	}
	return http.CanonicalHeaderKey(name), value, secret, nil
}

// AddHeader adds one "Name: value" line for a key kind ("" for every
// request), reading ${NAME} references from getenv.
func (t *Target) AddHeader(kind catalog.KeyKind, line string, getenv func(string) string) error {
	name, value, secret, err := ParseHeader(line, getenv)
	if err != nil {
		return err
	}
	h := t.Headers
	if kind != "" {
		if t.KeyHeaders == nil {
			t.KeyHeaders = map[catalog.KeyKind]http.Header{}
		}
		if t.KeyHeaders[kind] == nil {
			t.KeyHeaders[kind] = http.Header{}
		}
		h = t.KeyHeaders[kind]
	} else if h == nil {
		t.Headers = http.Header{}
		h = t.Headers
	}
	h.Add(name, value)
	if t.HeaderLines == nil {
		t.HeaderLines = map[catalog.KeyKind][]string{}
	}
	t.HeaderLines[kind] = append(t.HeaderLines[kind], name+": "+strings.TrimSpace(strings.SplitN(line, ":", 2)[1]))
	// Redaction replaces exact values: a short one ("openai") would be
	// replaced inside ordinary words, and is no secret worth it.
	if secret && len(value) >= redact.MinSecretLen {
		t.SecretValues = append(t.SecretValues, value)
	}
	return nil
}

// BaseURLVariables names the variable of the base URL ("") and of each
// key kind's own base (DESIGN.md).
var BaseURLVariables = map[catalog.KeyKind]string{
	"":                  "GWCONFORM_BASE_URL",
	catalog.KeyText:     "GWCONFORM_TEXT_BASE_URL",
	catalog.KeyMessages: "GWCONFORM_MESSAGES_BASE_URL",
	catalog.KeyImage:    "GWCONFORM_IMAGE_BASE_URL",
	catalog.KeyAlt:      "GWCONFORM_ALT_BASE_URL",
}

// KeyVariables names the environment variable of each key kind (DESIGN.md).
var KeyVariables = map[catalog.KeyKind]string{
	catalog.KeyText:     "GWCONFORM_TEXT_KEY",
	catalog.KeyMessages: "GWCONFORM_MESSAGES_KEY",
	catalog.KeyImage:    "GWCONFORM_IMAGE_KEY",
	catalog.KeyAlt:      "GWCONFORM_ALT_KEY",
}

// Secrets returns every key value and secret header value, for redaction.
func (t Target) Secrets() []string {
	var out []string
	for _, k := range t.Keys {
		if k != "" {
			out = append(out, k)
		}
	}
	return append(out, t.SecretValues...)
}

// Validate refuses keys that redaction cannot keep out of the outputs:
// redaction replaces exact values, and a short key ("x") would be replaced
// inside every word of every report.
func (t Target) Validate() error {
	for _, kind := range catalog.KeyKinds {
		if k := t.Keys[kind]; k != "" && len(k) < redact.MinSecretLen {
			return fmt.Errorf("the %s key is %d characters long; keys shorter than %d are refused, because redacting so short a value would mangle every output", kind, len(k), redact.MinSecretLen)
		}
	}
	return nil
}
