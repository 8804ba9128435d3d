package catalog

import (
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/goccy/go-yaml/ast"

	"github.com/gwconform/gwconform/cases"
	"github.com/gwconform/gwconform/cases/clients"
	"github.com/gwconform/gwconform/conformance/vocab"
	"github.com/gwconform/gwconform/fixtures"
)

// The judge names a client by library and version rather than by the
// User-Agent's first word, which misnames real libraries (the Vercel AI SDK
// sends three, LangChain those of the SDK it drives, go-openai Go's own).
// How each library is told apart is data (cases/clients/clients.yaml), each
// fact beside the place in the library's source it comes from, so that a
// new release is one entry to check, not code to change. The same entries
// say what each library uses (features and endpoints) and which answer
// properties it depends on, each tied to a check of the catalog, so that a
// run's results tell whether the library will work (results.ReadinessRows):
// one table of clients.

// Clients is the table of known client libraries, in the order their
// entries are tried.
type Clients struct {
	Entries []Client
}

// Client is one known library: how its requests are recognised, and its
// own remedies for breaches its default options make.
type Client struct {
	// ID names the library in reports: its repository's name
	// (openai-node, anthropic-sdk-go); ^[a-z0-9][a-z0-9.-]*$, unique.
	ID string `yaml:"id"`
	// Package is what a developer installs ("npm openai").
	Package string `yaml:"package"`
	// Repository is where its source is (github.com/openai/openai-node);
	// a Source without its own repository is in this one.
	Repository string   `yaml:"repository"`
	Signs      []Sign   `yaml:"signs"`
	Remedies   []Remedy `yaml:"remedies"`
	// Uses are the features the library uses, each with the answer
	// properties it depends on; none for a relay (it sends no call of
	// its own to judge a gateway by).
	Uses []Use `yaml:"uses"`
}

// Use is one feature of the catalog a library uses, and what it needs of
// the answers to it.
type Use struct {
	Feature string `yaml:"feature"` // a name of Features
	// Endpoint is "METHOD /path" as the feature's cases send it.
	Endpoint string `yaml:"endpoint"`
	// Basic marks the library's basic path: a basic feature failing makes
	// the library NOT READY, another one LIMITED.
	Basic bool   `yaml:"basic"`
	Needs []Need `yaml:"needs"`
}

// Need is one answer property a library depends on for a feature, the
// check of the catalog that holds it, and where the library's source
// depends on it. The check is a case, narrowed to the reasons of one
// check (Reason.Check) or one stream rule: a result of the case failing
// for another reason leaves the property holding.
type Need struct {
	Property string `yaml:"property"`
	// Basic: the feature's plain call fails without it; a need that is
	// not basic is one use of the feature (an accumulator, a helper).
	Basic bool   `yaml:"basic"`
	Case  string `yaml:"case"`
	Check string `yaml:"check"` // one of vocab.Checks; "" any
	Rule  string `yaml:"rule"`  // one of vocab.StreamRules; "" any
	// Reason narrows further, where the library is more lenient than the
	// check: an RE2 pattern a reason's text (vocab.Reason.String) must
	// match to be the need's. go-openai takes any status below 400 for a
	// success, so its status need matches only "got 4" and "got 5".
	Reason string `yaml:"reason"`
	// BeyondSpec marks a property the spec does not state: its case is
	// strict or explore, never verified, as a library's needs do not
	// change what conformance is.
	BeyondSpec bool   `yaml:"beyond_spec"`
	Source     Source `yaml:"source"`

	tier   vocab.Tier     // the case's, set by the reader
	reason *regexp.Regexp // Reason compiled, set by the reader
}

// Tier is the tier of the need's case.
func (n Need) Tier() vocab.Tier { return n.tier }

// Matches says whether a reason of a failed result of the need's case is
// the need's: its check, and its rule, which a stream reason names in
// parentheses at the end of its message.
func (n Need) Matches(r vocab.Reason) bool {
	if n.Check != "" && r.Check != n.Check {
		return false
	}
	if n.Rule != "" && !strings.HasSuffix(r.Message, "("+n.Rule+")") {
		return false
	}
	return n.reason == nil || n.reason.MatchString(r.String())
}

// Narrowed says the need is one kind of failure of its case (a check, a
// stream rule or a reason), not any of them.
func (n Need) Narrowed() bool { return n.Check != "" || n.Rule != "" || n.Reason != "" }

// Cites is the check a need is tied to, for reports: "chat-json",
// "chat-json content_type", "chat-stream-strict rule chat.error-member".
func (n Need) Cites() string {
	s := n.Case
	if n.Check != "" {
		s += " " + n.Check
	}
	if n.Rule != "" {
		s += " rule " + n.Rule
	}
	return s
}

// Where is a source's place for reports: repository, file, function and
// versions, and whether a drive confirmed it.
func (s Source) Where() string {
	w := s.Repository + " " + s.File
	if s.Function != "" {
		w += " " + s.Function
	}
	w += " (" + s.Versions
	if s.Driven != "" {
		return w + "; driven " + s.Driven + ")"
	}
	return w + "; source only, not yet driven)"
}

// Sign is one way a library's requests look: every header pattern must
// match. A pattern is an RE2 expression matched against the header's values
// joined by ", ", an absent header being "" ('^$' says "absent"). The
// version is the named group (?P<version>...) of a pattern, or Version when
// the headers carry none of the library's own.
type Sign struct {
	Headers map[string]string `yaml:"headers"`
	Version string            `yaml:"version"`
	// Guess, when set, says which other programs send the same headers:
	// the sign names the library by a combination of headers, not by a
	// header of its own.
	Guess  string `yaml:"guess"`
	Source Source `yaml:"source"`

	patterns []headerPattern // Headers compiled, by canonical name
}

type headerPattern struct {
	name string
	re   *regexp.Regexp
}

// Source is where a fact of the table comes from in a library's code.
type Source struct {
	Repository string `yaml:"repository"` // the entry's when not given
	File       string `yaml:"file"`
	Function   string `yaml:"function"`
	// Versions are the releases whose source was read.
	Versions string `yaml:"versions"`
	// Driven is the release a drive against a local server confirmed the
	// fact with; empty for a fact read from source alone.
	Driven string `yaml:"driven"`
}

// Remedy is a library's own way to keep a spec row that its default
// option breaks: for 5.1/bearer, the option that sends Authorization:
// Bearer in place of x-api-key.
type Remedy struct {
	// Row is the spec row broken (5.1/bearer).
	Row string `yaml:"row"`
	// Sent is what the request sent in its place, as the judge names it:
	// for 5.1/bearer the credential's header as record.Request.Auth gives
	// it (x-api-key).
	Sent   string `yaml:"sent"`
	Text   string `yaml:"text"`
	Source Source `yaml:"source"`
}

// Identity is who sent a request: a known library and its version, or,
// for another client, the User-Agent's product token.
type Identity struct {
	// Client is the library's ID, else the product token (OpenAI/Go
	// 1.2.0 gives OpenAI/Go, curl/8.5.0 gives curl), "unnamed client"
	// when the request has no User-Agent.
	Client string
	// Version is the library's version as its requests carry it; empty
	// when they carry none, and for an unknown client.
	Version string
	// Guess is the matching sign's Guess: set when other programs send the
	// same headers, so the name may be wrong.
	Guess string

	entry *Client // nil for an unknown client
}

// Known says whether the table named the client.
func (id Identity) Known() bool { return id.entry != nil }

// Row is the client's name in reports: library and version
// ("openai-node 6.9.1", "vercel-ai-sdk 6"), the library alone when its
// requests carry no version ("go-openai"), or the product token of an
// unknown client.
func (id Identity) Row() string {
	if id.Version == "" {
		return id.Client
	}
	return id.Client + " " + id.Version
}

// Remedy is the library's own remedy for breaking the spec row row by
// sending sent (5.1/bearer, x-api-key): "" when the table gives none, and
// always for an unknown client.
func (id Identity) Remedy(row, sent string) string {
	if id.entry == nil {
		return ""
	}
	for _, r := range id.entry.Remedies {
		if r.Row == row && r.Sent == sent {
			return r.Text
		}
	}
	return ""
}

// Identify names the client that sent a request with these headers
// (canonical names, as net/http gives them): the first entry with a sign
// that matches, else the User-Agent's product token. A nil table knows no
// client. It only reads the table: workers may call it at once.
func (cs *Clients) Identify(h http.Header) Identity {
	if cs != nil {
		for i := range cs.Entries {
			c := &cs.Entries[i]
			for j := range c.Signs {
				if version, ok := c.Signs[j].match(h); ok {
					return Identity{Client: c.ID, Version: version, Guess: c.Signs[j].Guess, entry: c}
				}
			}
		}
	}
	return Identity{Client: ProductToken(h.Get("User-Agent"))}
}

// match reports whether every pattern of the sign matches, and the
// version it gives.
func (s *Sign) match(h http.Header) (string, bool) {
	version := s.Version
	for _, p := range s.patterns {
		m := p.re.FindStringSubmatch(strings.Join(h.Values(p.name), ", "))
		if m == nil {
			return "", false
		}
		if i := p.re.SubexpIndex(versionGroup); i > 0 {
			version = m[i]
		}
	}
	return version, true
}

// versionGroup is the named group of a pattern that captures the version.
const versionGroup = "version"

// ProductToken is a User-Agent's first word without its version
// (OpenAI/Go 1.2.0 is OpenAI/Go; curl/8.5.0 is curl), "unnamed client"
// when there is none: how a client the table does not know is named.
func ProductToken(userAgent string) string {
	ua := strings.Fields(userAgent)
	if len(ua) == 0 {
		return "unnamed client"
	}
	tok := ua[0]
	if name, version, ok := strings.Cut(tok, "/"); ok && version != "" && version[0] >= '0' && version[0] <= '9' {
		return name
	}
	return tok
}

// clientsFile is where the embedded table is shown in diagnostics.
const clientsFile = "cases/clients/clients.yaml"

// EmbeddedClients is the committed table, read once and checked against
// the embedded spec's rows.
func EmbeddedClients() (*Clients, error) { return embeddedClients() }

var embeddedClients = sync.OnceValues(func() (*Clients, error) {
	spec, err := embeddedSpec()
	if err != nil {
		return nil, err
	}
	cat, err := Load(cases.FS, fixtures.FS, nil)
	if err != nil {
		return nil, err
	}
	return LoadClients(clientsFile, clients.YAML, spec, cat)
})

func init() {
	// The table's structs, as "unknown field" messages name them.
	for t, noun := range map[reflect.Type]string{
		reflect.TypeFor[Client](): "client", reflect.TypeFor[Sign](): "sign",
		reflect.TypeFor[Remedy](): "remedy", reflect.TypeFor[Source](): "source",
		reflect.TypeFor[Use](): "use", reflect.TypeFor[Need](): "need",
	} {
		nouns[t] = noun
	}
}

var clientIDRE = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]*$`)

// LoadClients reads a table of clients (`clients:`, a list of entries) as
// strictly as case files: an unknown field (with a did-you-mean), a wrong
// type, a missing field, a duplicate id, a pattern that does not compile,
// a remedy whose row is not a testable row of spec, or a need citing a case
// of cat, a check or a stream rule that does not exist is a diagnostic at
// file:line:col, and every one is reported.
func LoadClients(file string, data []byte, spec *Spec, cat *Catalog) (*Clients, error) {
	var ds Diagnostics
	d := newDecoder(file, &ds, nil)
	root, ok := d.document(data)
	if !ok {
		return nil, ds
	}
	cs := &Clients{}
	firstAt := map[string]Pos{}
	d.eachMapping(d.clientsList(root), "clients", "a list of clients", "a client", func(item ast.Node) {
		cs.Entries = append(cs.Entries, d.decodeClient(item, spec, cat, firstAt))
	})
	if len(ds) > 0 {
		return nil, ds.sorted()
	}
	return cs, nil
}

// clientsList is the list of a table's entries, its one field; nil after
// reporting a file without one.
func (d *decoder) clientsList(root ast.Node) ast.Node {
	m, ok := d.resolve(root).(*ast.MappingNode)
	if !ok {
		d.errAt(Pos{1, 1}, "expected a mapping with clients: a list of clients")
		return nil
	}
	var list ast.Node
	for _, p := range d.pairs(m) {
		if p.key != "clients" {
			d.errf(p.keyNode, "unknown field %q in clients file; known fields: clients%s", p.key, Closest(p.key, []string{"clients"}))
			continue
		}
		list = p.value
	}
	if list == nil {
		d.errf(m, "missing field clients")
	}
	return list
}

// decodeClient decodes one entry and checks it; firstAt holds where each
// id was declared first.
func (d *decoder) decodeClient(item ast.Node, spec *Spec, cat *Catalog, firstAt map[string]Pos) Client {
	var c Client
	d.pos[""] = nodePos(item)
	d.decode(item, reflect.ValueOf(&c).Elem(), "")
	d.text("", "id", c.ID, true)
	d.text("", "package", c.Package, true)
	d.text("", "repository", c.Repository, true)
	if !d.present["signs"] {
		d.missingField("signs")
	}
	switch at := d.at("id"); {
	case c.ID == "":
	case !clientIDRE.MatchString(c.ID):
		d.errAt(at, "id %q must match %s", c.ID, clientIDRE)
	case firstAt[c.ID].valid():
		first := firstAt[c.ID]
		d.errAt(at, "duplicate id %q (first declared at %s:%d:%d)", c.ID, d.file, first.Line, first.Col)
	default:
		firstAt[c.ID] = at
	}
	if d.present["signs"] && len(c.Signs) == 0 && !d.failed["signs"] {
		d.errAt(d.at("signs"), "signs: empty; give at least one")
	}
	for i := range c.Signs {
		d.checkSign(&c.Signs[i], fmt.Sprintf("signs[%d]", i), c.Repository)
	}
	d.checkRemedies(&c, spec)
	d.checkUses(&c, cat)
	return c
}

// text checks a text field of the struct at path: given when required,
// and not empty when given (a field left out says so by its absence).
func (d *decoder) text(path, field, value string, required bool) {
	full := join(path, field)
	switch {
	case !d.present[full]:
		if required {
			d.errAt(d.itemAt(path), "%s", strings.TrimPrefix(path+": missing field "+field, ": "))
		}
	case !d.failed[full] && strings.TrimSpace(value) == "":
		d.errAt(d.at(full), "%s: empty; give a value or leave the field out", full)
	}
}

// itemAt is where the item at path (signs[0]) starts: its first field, as
// the decoder records no position for a list's items.
func (d *decoder) itemAt(path string) Pos {
	if path == "" {
		return d.at("")
	}
	var first Pos
	for p, at := range d.keyPos {
		if strings.HasPrefix(p, path+".") && at.valid() && (!first.valid() || at.Line < first.Line || at.Line == first.Line && at.Col < first.Col) {
			first = at
		}
	}
	if !first.valid() {
		return d.at(path)
	}
	return first
}

// checkSign compiles a sign's patterns and checks that it names the
// version once at most.
func (d *decoder) checkSign(s *Sign, path, repo string) {
	if len(s.Headers) == 0 && !d.failed[path+".headers"] {
		d.errAt(d.at(path+".headers"), "%s.headers: give at least one header and its pattern", path)
	}
	d.text(path, "version", s.Version, false)
	d.text(path, "guess", s.Guess, false)
	versioned := s.Version != ""
	names := make([]string, 0, len(s.Headers))
	for name := range s.Headers {
		names = append(names, name)
	}
	slices.Sort(names)
	seen := map[string]string{}
	for _, name := range names {
		at := d.at(path + ".headers[" + name + "]")
		canon := http.CanonicalHeaderKey(name)
		if other, dup := seen[canon]; dup {
			d.errAt(at, "header %s is given twice (as %s and %s)", canon, other, name)
			continue
		}
		seen[canon] = name
		if !validHeaderName(name) {
			d.errAt(at, "%q is not a header name", name)
			continue
		}
		if p, ok := d.headerPattern(canon, s.Headers[name], at, versioned); ok {
			versioned = versioned || p.re.SubexpIndex(versionGroup) > 0
			s.patterns = append(s.patterns, p)
		}
	}
	d.checkSource(&s.Source, path+".source", repo)
}

// headerPattern compiles one pattern: not empty, RE2, and with no named
// group but one version when the sign has none yet.
func (d *decoder) headerPattern(name, pattern string, at Pos, versioned bool) (headerPattern, bool) {
	if pattern == "" {
		d.errAt(at, "%s: empty pattern; '^$' matches an absent header", name)
		return headerPattern{}, false
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		d.errAt(at, "%s: invalid regular expression: %v", name, err)
		return headerPattern{}, false
	}
	for _, group := range re.SubexpNames() {
		switch {
		case group == "":
		case group != versionGroup:
			d.errAt(at, "%s: named group %q; the only one is (?P<version>...)", name, group)
			return headerPattern{}, false
		case versioned:
			d.errAt(at, "%s: the sign's version is given already; a sign gives it once", name)
			return headerPattern{}, false
		}
	}
	return headerPattern{name: name, re: re}, true
}

// checkRemedies: each remedy names a testable row of the spec, what was
// sent and its text, once per row and sending.
func (d *decoder) checkRemedies(c *Client, spec *Spec) {
	for i, r := range c.Remedies {
		path := fmt.Sprintf("remedies[%d]", i)
		d.text(path, "row", r.Row, true)
		d.text(path, "sent", r.Sent, true)
		d.text(path, "text", r.Text, true)
		if r.Row != "" {
			if ref := SpecRef(r.Row); !ref.IsRow() {
				d.errAt(d.at(path+".row"), "row %q: give a requirement id such as 5.1/bearer", r.Row)
			} else if _, err := spec.Resolve(ref); err != nil {
				d.errAt(d.at(path+".row"), "row: %v", err)
			}
		}
		if first := slices.IndexFunc(c.Remedies, func(o Remedy) bool { return o.Row == r.Row && o.Sent == r.Sent }); first < i {
			d.errAt(d.itemAt(path), "%s: a second remedy for %s sending %s (the first is remedies[%d])", path, r.Row, r.Sent, first)
		}
		d.checkSource(&c.Remedies[i].Source, path+".source", c.Repository)
	}
}

// checkSource: where the fact is (file) and which releases were read; the
// entry's repository unless another is given.
func (d *decoder) checkSource(s *Source, path, repo string) {
	if !d.present[path] {
		item := strings.TrimSuffix(path, ".source")
		d.errAt(d.itemAt(item), "%s: missing field source; say where the fact comes from (file, versions)", item)
		return
	}
	d.text(path, "repository", s.Repository, false)
	d.text(path, "file", s.File, true)
	d.text(path, "function", s.Function, false)
	d.text(path, "versions", s.Versions, true)
	d.text(path, "driven", s.Driven, false)
	if s.Repository == "" {
		s.Repository = repo
	}
}

// checkUses: each use names a feature of the catalog once, and an endpoint
// its cases send; each need says its property and cites a case of that
// feature, a known check and a known stream rule; a need beyond the spec
// cites a strict or explore case.
func (d *decoder) checkUses(c *Client, cat *Catalog) {
	seen := map[string]int{}
	for i := range c.Uses {
		u := &c.Uses[i]
		path := fmt.Sprintf("uses[%d]", i)
		d.text(path, "feature", u.Feature, true)
		d.text(path, "endpoint", u.Endpoint, true)
		switch first, dup := seen[u.Feature]; {
		case u.Feature == "":
		case !slices.Contains(Features, u.Feature):
			d.errAt(d.at(path+".feature"), "feature %q is not in the feature catalog%s", u.Feature, Closest(u.Feature, Features))
		case dup:
			d.errAt(d.at(path+".feature"), "feature %s is used twice (the first is uses[%d])", u.Feature, first)
		default:
			seen[u.Feature] = i
			if u.Endpoint != "" && !slices.Contains(endpoints(cat, u.Feature), u.Endpoint) {
				d.errAt(d.at(path+".endpoint"), "endpoint %q: the cases of %s send %s", u.Endpoint, u.Feature, strings.Join(endpoints(cat, u.Feature), ", "))
			}
		}
		if len(u.Needs) == 0 && !d.failed[path+".needs"] {
			d.errAt(d.itemAt(path), "%s: no needs; give the answer properties the library depends on", path)
		}
		for j := range u.Needs {
			d.checkNeed(&u.Needs[j], fmt.Sprintf("%s.needs[%d]", path, j), u.Feature, c.Repository, cat)
		}
	}
}

// checkNeed checks one need and records its case's tier.
func (d *decoder) checkNeed(n *Need, path, feature, repo string, cat *Catalog) {
	d.text(path, "property", n.Property, true)
	d.text(path, "case", n.Case, true)
	d.text(path, "check", n.Check, false)
	d.text(path, "rule", n.Rule, false)
	d.text(path, "reason", n.Reason, false)
	if n.Reason != "" {
		re, err := regexp.Compile(n.Reason)
		if err != nil {
			d.errAt(d.at(path+".reason"), "reason: %v", err)
		}
		n.reason = re
	}
	if n.Check != "" && !slices.Contains(vocab.Checks, n.Check) {
		d.errAt(d.at(path+".check"), "check %q is no check of a result's reasons (%s)%s", n.Check, strings.Join(vocab.Checks, ", "), Closest(n.Check, vocab.Checks))
	}
	if n.Rule != "" {
		switch {
		case !slices.Contains(vocab.StreamRules, n.Rule):
			d.errAt(d.at(path+".rule"), "rule %q is no stream rule%s", n.Rule, Closest(n.Rule, vocab.StreamRules))
		case n.Check != "" && n.Check != "sse" && n.Check != "sse-strict":
			d.errAt(d.at(path+".check"), "check %s: a stream rule is judged by check sse or sse-strict", n.Check)
		}
	}
	if n.Case != "" {
		cs := cat.Case(n.Case)
		switch {
		case cs == nil:
			d.errAt(d.at(path+".case"), "case %q is not in the catalog%s", n.Case, Closest(n.Case, caseIDs(cat)))
		case cs.Feature != feature:
			d.errAt(d.at(path+".case"), "case %s is of feature %s, not %s", n.Case, cs.Feature, feature)
		case n.BeyondSpec && cs.Tier != vocab.TierStrict && cs.Tier != vocab.TierExplore:
			d.errAt(d.at(path+".case"), "case %s is %s: a need the spec does not state is held by a strict or explore case", n.Case, cs.Tier)
		default:
			n.tier = cs.Tier
		}
	}
	d.checkSource(&n.Source, path+".source", repo)
}

// endpoints are the "METHOD /path" the cases of a feature send.
func endpoints(cat *Catalog, feature string) []string {
	var out []string
	for _, c := range cat.Cases {
		if e := c.Request.Method + " " + c.Request.Path; c.Feature == feature && !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}

func caseIDs(cat *Catalog) []string {
	ids := make([]string, len(cat.Cases))
	for i, c := range cat.Cases {
		ids[i] = c.ID
	}
	return ids
}
