package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// Catalog is the loaded, validated case catalog. It is immutable after Load
// and safe for concurrent use.
type Catalog struct {
	// Cases in file order, files sorted by name.
	Cases []Case
	// Fixtures is the FS the templates and "@name" parts read from.
	Fixtures fs.FS
	// Files are the case files as displayed, e.g. "cases/chat.yaml".
	Files []string
	// Spec is the spec's requirement rows the cases' Refs resolve against.
	Spec *Spec

	hash     string
	fixtures sync.Map // name → fixtureData
}

// Hash is the sha256 (hex) of the case files' bytes in file order; reports
// record it so two runs can be told apart by their catalog.
func (c *Catalog) Hash() string { return c.hash }

// Case returns the case with the given id, or nil.
func (c *Catalog) Case(id string) *Case {
	for i := range c.Cases {
		if c.Cases[i].ID == id {
			return &c.Cases[i]
		}
	}
	return nil
}

// Option adjusts Load.
type Option func(*options)

type options struct {
	dir   string
	extra []ExtraFile
}

// ExtraFile is a case file from outside the catalog's directory: its name
// as diagnostics show it, and its bytes.
type ExtraFile struct {
	Name string
	Data []byte
}

// WithExtraFiles loads files beside the catalog's, after them and as
// strictly: model additions and cases of a team's own (--cases-extra).
func WithExtraFiles(files ...ExtraFile) Option {
	return func(o *options) { o.extra = append(o.extra, files...) }
}

// WithDisplayDir sets the directory shown before file names in diagnostics
// and Case.Pos (default "cases"; "" shows bare names). Use the --cases
// directory when loading from disk.
func WithDisplayDir(dir string) Option { return func(o *options) { o.dir = dir } }

// Load reads every *.yaml (and *.yml) file at the root of cases, in name
// order, and validates each case against the known features, the spec's
// requirement rows, schema names and fixtures. Problems in the files come back as Diagnostics holding all
// of them; a nil schemaNames skips the schema-name check.
func Load(cases fs.FS, fixtures fs.FS, schemaNames []string, opts ...Option) (*Catalog, error) {
	o := options{dir: "cases"}
	for _, f := range opts {
		f(&o)
	}
	spec, err := embeddedSpec()
	if err != nil {
		return nil, err
	}
	var names []string
	for _, pat := range []string{"*.yaml", "*.yml"} {
		m, err := fs.Glob(cases, pat)
		if err != nil {
			return nil, err
		}
		names = append(names, m...)
	}
	slices.Sort(names)
	if len(names) == 0 {
		return nil, errors.New("no case files (*.yaml) found")
	}
	l := &loader{
		fixtures: fixtures, spec: spec, firstID: map[string]string{},
	}
	if schemaNames != nil {
		l.schemas = map[string]bool{}
		for _, s := range schemaNames {
			l.schemas[s] = true
		}
	}
	cat := &Catalog{Fixtures: fixtures, Spec: spec}
	h := sha256.New()
	for _, name := range names {
		data, err := fs.ReadFile(cases, name)
		if err != nil {
			return nil, fmt.Errorf("reading case file: %w", err)
		}
		h.Write(data)
		display := name
		if o.dir != "" {
			display = path.Join(o.dir, name)
		}
		cat.Files = append(cat.Files, display)
		cat.Cases = append(cat.Cases, l.loadFile(display, data)...)
	}
	for _, f := range o.extra {
		h.Write(f.Data)
		cat.Files = append(cat.Files, f.Name)
		cat.Cases = append(cat.Cases, l.loadFile(f.Name, f.Data)...)
	}
	l.applyAdditions(cat.Cases)
	l.checkControls(cat.Cases)
	if len(l.diags) > 0 {
		return nil, l.diags.sorted()
	}
	cat.hash = hex.EncodeToString(h.Sum(nil))
	return cat, nil
}

type loader struct {
	fixtures fs.FS
	spec     *Spec
	schemas  map[string]bool   // nil: not checked
	firstID  map[string]string // id → position of its first declaration
	diags    Diagnostics
	// additions are applied once every file is read (see additions.go).
	additions []modelAddition
	// controlAt is where each case named its control, for the checks made
	// once every file is read (see control.go).
	controlAt map[string]Diagnostic
}

// loadFile decodes one file; its problems go to l.diags.
func (l *loader) loadFile(file string, data []byte) (out []Case) {
	d := newDecoder(file, &l.diags, l.fixtures)
	m := d.caseFileRoot(data)
	if m == nil {
		return nil
	}
	top := l.readTopLevel(d, m)
	if top.hasDefaults {
		if top.cases == nil && top.explore == nil {
			d.errf(m, "defaults: the file has no cases or explore domains to take them")
		}
		d.defaults = d.decodeDefaults(top.defaults)
	}
	if top.cases == nil {
		if !top.hasAdditions && top.explore == nil {
			d.errf(m, "missing field cases")
		}
	} else {
		out = l.decodeCases(d, file, top.cases)
	}
	if top.explore != nil {
		out = append(out, l.decodeExplore(d, top.explore)...)
	}
	return out
}

// caseFileRoot parses a case file and returns the mapping of its one
// document, or nil after reporting why there is none.
func (d *decoder) caseFileRoot(data []byte) *ast.MappingNode {
	f, err := parseYAML(data)
	if err != nil {
		var ye yaml.Error
		if errors.As(err, &ye) && ye.GetToken() != nil && ye.GetToken().Position != nil {
			p := ye.GetToken().Position
			d.errAt(tokenPos(p.Line, p.Column), "%s", ye.GetMessage())
		} else {
			d.errAt(Pos{1, 1}, "%v", err)
		}
		return nil
	}
	docs := slices.DeleteFunc(f.Docs, emptyDocument)
	if len(docs) == 0 {
		d.errAt(Pos{1, 1}, "empty file: expected a mapping with feature_group and cases")
		return nil
	}
	if len(docs) > 1 {
		d.errf(docs[1].Body, "only one YAML document per case file")
	}
	root := docs[0].Body
	d.collectAnchors(root)
	root = d.resolve(root)
	m, ok := root.(*ast.MappingNode)
	if !ok && root != nil {
		d.errf(root, "expected a mapping with feature_group and cases, got %s", kindOf(root))
	}
	return m
}

// emptyDocument is a document with nothing in it, such as a bare "---".
func emptyDocument(doc *ast.DocumentNode) bool { return doc == nil || isNull(doc.Body) }

// topLevel holds the fields of a case file that loadFile reads in its own
// order: the defaults before the cases and domains that take them.
type topLevel struct {
	cases, explore, defaults  ast.Node
	hasDefaults, hasAdditions bool
}

// readTopLevel reads feature_group and model_additions, and returns the
// other fields of the file.
func (l *loader) readTopLevel(d *decoder, m *ast.MappingNode) topLevel {
	var top topLevel
	for _, p := range d.pairs(m) {
		switch p.key {
		case "feature_group":
			d.decodeFeatureGroup(p.value)
		case "cases":
			top.cases = p.value
		case "explore":
			top.explore = p.value
		case "defaults":
			top.defaults, top.hasDefaults = p.value, true
		case "model_additions":
			l.decodeAdditions(d, p.value)
			top.hasAdditions = true
		default:
			d.errf(p.keyNode, "unknown field %q in file%s", p.key, suggest(p.key, fileFields))
		}
	}
	return top
}

// decodeFeatureGroup reads feature_group, which names a prefix of the known
// features.
func (d *decoder) decodeFeatureGroup(n ast.Node) {
	var group string
	d.decode(n, reflect.ValueOf(&group).Elem(), "feature_group")
	if group != "" && !knownGroup(group) {
		d.errf(n, "feature_group %q is no prefix of a known feature", group)
	}
}

// fileFields are the top-level fields of a case file.
var fileFields = []fieldInfo{{name: "feature_group"}, {name: "defaults"}, {name: "cases"}, {name: "explore"}, {name: "model_additions"}}

// sequence resolves a field's value that must be a list; otherwise it
// reports "field: expected what, got …" and returns nil.
func (d *decoder) sequence(n ast.Node, field, what string) *ast.SequenceNode {
	seq, ok := d.resolve(n).(*ast.SequenceNode)
	if !ok {
		if r := d.resolve(n); r != nil {
			d.errf(r, "%s: expected %s, got %s", field, what, kindOf(r))
		}
		return nil
	}
	return seq
}

// eachMapping calls each for every item of the list n of field (cases,
// explore), with the per-case decoding state reset; a list that is not one,
// an empty list and an item that is not a mapping are errors at their place.
func (d *decoder) eachMapping(n ast.Node, field, what, item string, each func(ast.Node)) {
	seq := d.sequence(n, field, what)
	if seq == nil {
		return
	}
	if len(seq.Values) == 0 {
		d.errf(seq, "%s: empty list", field)
	}
	for _, v := range seq.Values {
		d.resetCase()
		v = d.resolve(v)
		if v == nil {
			continue
		}
		if _, ok := v.(*ast.MappingNode); !ok {
			d.errf(v, "%s must be a mapping, got %s", item, kindOf(v))
			continue
		}
		each(v)
	}
}

// decodeCases reads a cases list.
func (l *loader) decodeCases(d *decoder, file string, casesNode ast.Node) (out []Case) {
	d.eachMapping(casesNode, "cases", "a list of cases", "a case", func(item ast.Node) {
		var c Case
		at := nodePos(item)
		d.pos[""] = at
		d.decode(item, reflect.ValueOf(&c).Elem(), "")
		d.applyDefaults(&c.Key, &c.Models, &c.Request, c.Variants)
		c.Spec = c.Refs.String()
		c.Pos = fmt.Sprintf("%s:%d:%d", file, at.Line, at.Col)
		l.validate(d, &c)
		out = append(out, c)
	})
	return out
}

// parseYAML runs the YAML parser. It is third-party code fed arbitrary bytes: a
// panic in it becomes an error at 1:1 rather than killing lint. Only the
// parser is guarded, so a panic in this package's own code still surfaces
// (FuzzLoad looks for those).
func parseYAML(data []byte) (f *ast.File, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, fmt.Errorf("YAML parser failed: %v", r)
		}
	}()
	return parser.ParseBytes(data, 0)
}

// document parses a one-document file (a settings or requirements file) and
// returns its body with its anchors indexed, or false after a diagnostic
// when it does not parse. An empty file has a nil body.
func (d *decoder) document(data []byte) (ast.Node, bool) {
	f, err := parseYAML(data)
	if err != nil {
		// A syntax error at its own place, in one line: the parser's
		// message without its source excerpt.
		p, msg := Pos{1, 1}, err.Error()
		var ye yaml.Error
		if errors.As(err, &ye) {
			msg = ye.GetMessage()
			if tk := ye.GetToken(); tk != nil && tk.Position != nil {
				p = Pos{max(tk.Position.Line, 1), max(tk.Position.Column, 1)}
			}
		}
		d.errAt(p, "%s", msg)
		return nil, false
	}
	var root ast.Node
	if len(f.Docs) > 0 && f.Docs[0] != nil {
		root = f.Docs[0].Body
	}
	if !isNull(root) {
		d.collectAnchors(root)
	}
	return root, true
}

func knownGroup(g string) bool {
	for _, f := range Features {
		if f == g || strings.HasPrefix(f, g+".") {
			return true
		}
	}
	return false
}

var (
	idPattern   = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]*$`)
	sizePattern = regexp.MustCompile(`^[1-9][0-9]{0,4}x[1-9][0-9]{0,4}$`)
)

// at is the position of a field path, falling back to its parents and
// finally to the case itself.
func (d *decoder) at(p string) Pos {
	for {
		if pos, ok := d.pos[p]; ok && pos.valid() {
			return pos
		}
		if p == "" {
			return Pos{1, 1}
		}
		if i := strings.LastIndexAny(p, ".["); i >= 0 {
			p = p[:i]
		} else {
			p = ""
		}
	}
}

// keyAt is the position of a field's key (for messages about the field as a
// whole), falling back like at.
func (d *decoder) keyAt(p string) Pos {
	if pos, ok := d.keyPos[p]; ok && pos.valid() {
		return pos
	}
	return d.at(p)
}

// validate applies the rules that decoding alone cannot express.
func (l *loader) validate(d *decoder, c *Case) {
	l.validateID(d, c)
	validateFeatureAndTier(d, c)
	l.validateSpec(d, c)
	validateKeyAndModels(d, c)
	validateRequires(d, c)
	l.validateRequest(d, c)
	l.validateVariants(d, c)
	l.validateExpect(d, c)
	l.validateControl(d, c)
}

// missingField reports a field the case (or requirement row) must give, at
// the case.
func (d *decoder) missingField(name string) {
	d.errAt(d.at(""), "missing field %s", name)
}

// validateID: an id is well formed and names one case of the catalog.
func (l *loader) validateID(d *decoder, c *Case) {
	switch at := d.at("id"); {
	case !d.present["id"]:
		d.missingField("id")
	case c.ID == "":
		// decoding already reported it
	case !idPattern.MatchString(c.ID):
		d.errAt(at, "id %q must match %s", c.ID, idPattern)
	default:
		if first, dup := l.firstID[c.ID]; dup {
			d.errAt(at, "duplicate id %q (first declared at %s)", c.ID, first)
		} else {
			l.firstID[c.ID] = fmt.Sprintf("%s:%d:%d", d.file, at.Line, at.Col)
		}
	}
}

// validateFeatureAndTier: both given, and each one the suite knows.
func validateFeatureAndTier(d *decoder, c *Case) {
	if !d.present["feature"] {
		d.missingField("feature")
	} else if c.Feature != "" && !slices.Contains(Features, c.Feature) {
		d.errAt(d.at("feature"), "unknown feature %q%s", c.Feature, Closest(c.Feature, Features))
	}
	if !d.present["tier"] {
		d.missingField("tier")
	} else if c.Tier != "" && !c.Tier.Valid() {
		d.errAt(d.at("tier"), "tier %q is not one of %s", c.Tier, joinStrings(vocab.Tiers))
	}
}

// validateSpec checks what the case says it checks (spec, requirement) and,
// in the tiers that go beyond the spec's words, why that matters; it fills
// Requirement with the words of the cited rows.
func (l *loader) validateSpec(d *decoder, c *Case) {
	if !d.present["spec"] {
		d.errAt(d.at(""), "missing field spec (the requirement ids this case checks)")
	}
	l.validateSpecRefs(d, c)
	if d.present["requirement"] && strings.TrimSpace(c.Requirement) == "" {
		d.errAt(d.at("requirement"), "requirement: empty; leave it out to show the cited rows' sentences alone")
	}
	c.Requirement = l.spec.Sentences(c.Refs, c.Requirement)
	if (c.Tier == vocab.TierStrict || c.Tier == vocab.TierExplore) && strings.TrimSpace(c.Why) == "" {
		d.errAt(d.at(""), "a %s case needs why (the reason it matters)", c.Tier)
	}
}

// validateKeyAndModels: both given (here or by the defaults), and valid.
func validateKeyAndModels(d *decoder, c *Case) {
	if !d.present["key"] {
		d.missingField("key")
	} else {
		checkKey(d, c.Key)
	}
	if !d.present["models"] {
		d.missingField("models")
	} else if !d.failed["models"] {
		checkModels(d, c.Models)
	}
}

// validateRequires: known preconditions, and the one a publicImageURL
// template needs.
func validateRequires(d *decoder, c *Case) {
	for i, p := range c.Requires {
		if !slices.Contains(Preconditions, p) {
			d.errAt(d.at(fmt.Sprintf("requires[%d]", i)), "unknown precondition %q (known: %s)", p, strings.Join(Preconditions, ", "))
		}
	}
	if d.usesPublicURL && !slices.Contains(c.Requires, PreconditionPublicImageURL) {
		d.errAt(d.publicURLPos, "the request uses publicImageURL: add requires: [%s]", PreconditionPublicImageURL)
	}
}

// joinStrings lists named string values (tiers, protocols) for a message.
func joinStrings[S ~string](vs []S) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = string(v)
	}
	return strings.Join(s, ", ")
}

// Closest is "; did you mean X?" for the known name nearest to s, or ""
// when none is near: the hint of every refused name, in case files and on
// the command line alike.
func Closest(s string, known []string) string {
	best, bestD := "", max(3, len(s)/4)+1
	for _, k := range known {
		if dist := EditDistance(s, k); dist < bestD {
			best, bestD = k, dist
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", best)
}

func (l *loader) validateRequest(d *decoder, c *Case) {
	r := &c.Request
	if !d.present["request"] {
		d.missingField("request")
		return
	}
	if !d.present["request.method"] {
		d.errAt(d.at("request"), "request: missing field method")
	} else {
		checkMethod(d, r.Method)
	}
	if !d.present["request.path"] {
		d.errAt(d.at("request"), "request: missing field path")
	} else {
		checkPath(d, r.Path)
	}
	if !slices.Contains(Auths, r.Auth) {
		d.errAt(d.at("request.auth"), "request.auth %q is not none or invalid (omit it to send the case's key)", r.Auth)
	}
	validateBody(d, c)
	validateHeaders(d, r)
}

// validateBody: a GET has no body; a POST has exactly one of json,
// multipart and raw, unless its variants give the bodies.
func validateBody(d *decoder, c *Case) {
	var kinds []string
	for _, k := range []string{"json", "multipart", "raw"} {
		if d.present["request."+k] {
			kinds = append(kinds, k)
		}
	}
	switch method := c.Request.Method; {
	case method == "GET" && len(kinds) > 0:
		d.errAt(d.keyAt("request."+kinds[0]), "request: a GET request has no body (found %s)", kinds[0])
	case method == "POST" && len(kinds) == 0 && !d.present["variants"]:
		d.errAt(d.at("request"), "request: a POST request needs exactly one of json, multipart, raw")
	case len(kinds) > 1:
		d.errAt(d.keyAt("request."+kinds[1]), "request: exactly one of json, multipart, raw (found %s)", strings.Join(kinds, " and "))
	}
}

// validateHeaders: the engine sets Authorization from the case's key and
// Content-Type from the body kind, so only a raw body may set the latter.
func validateHeaders(d *decoder, r *Request) {
	for name := range r.Headers {
		at := d.keyAt("request.headers[" + name + "]")
		switch {
		case strings.EqualFold(name, "Authorization"):
			d.errAt(at, "request.headers: Authorization is set from the case's key; use auth: none or invalid")
		case strings.EqualFold(name, "Content-Type") && !d.present["request.raw"]:
			d.errAt(at, "request.headers: Content-Type is set by the body kind; only a raw body may set it")
		case !validHeaderName(name):
			d.errAt(at, "request.headers: %q is not a valid header name", name)
		}
	}
}

func (l *loader) validateVariants(d *decoder, c *Case) {
	if !d.present["variants"] {
		return
	}
	if len(c.Variants) < 2 {
		d.errAt(d.at("variants"), "variants: give at least two alternative bodies (one is just request.json)")
	}
	if d.present["request.json"] || d.present["request.multipart"] || d.present["request.raw"] || c.Request.Method != "POST" {
		d.errAt(d.keyAt("variants"), "variants replace request.json: the request is a POST with no body of its own")
	}
	seen := map[string]bool{}
	for i, v := range c.Variants {
		p := fmt.Sprintf("variants[%d]", i)
		switch {
		case v.Name == "":
			d.errAt(d.at(p), "%s: missing field name", p)
		case seen[v.Name]:
			d.errAt(d.at(p+".name"), "%s: variant name %q used twice", p, v.Name)
		}
		seen[v.Name] = true
		if _, ok := v.JSON.(map[string]any); !ok {
			d.errAt(d.at(p), "%s.json: expected a mapping (the JSON body)", p)
		}
	}
}

func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r > 126 || r <= 32 || strings.ContainsRune("\"(),/:;<=>?@[\\]{}", r) {
			return false
		}
	}
	return true
}

// stream reads the request's stream parameter (JSON true or form "true").
func stream(r *Request) bool {
	v, ok := r.Param("stream")
	return ok && (v == true || v == "true")
}

var statusClass = regexp.MustCompile(`^[1-5]xx$`)

func (l *loader) validateExpect(d *decoder, c *Case) {
	if !d.present["expect"] {
		d.missingField("expect")
		return
	}
	validateStatus(d, &c.Expect)
	if e := c.Expect; e.Schema != "" && l.schemas != nil && !l.schemas[e.Schema] {
		d.errAt(d.at("expect.schema"), "unknown schema %q%s", e.Schema, Closest(e.Schema, sortedKeys(l.schemas)))
	}
	validateJSONPaths(d, c)
	if c.Expect.Images != nil {
		l.validateImages(d, "expect.images", c.Expect.Images)
	}
	validateDiffersFrom(d, c)
	l.validateSSE(d, c)
}

// validateStatus: exactly one of status and status_in, each well formed.
func validateStatus(d *decoder, e *Expect) {
	switch {
	case d.present["expect.status"] && d.present["expect.status_in"]:
		d.errAt(d.at("expect.status_in"), "expect: give status or status_in, not both")
	case d.present["expect.status_in"]:
		s := e.StatusIn
		switch {
		case s == nil || len(s.Classes) == 0 || slices.ContainsFunc(s.Classes, func(c string) bool { return !statusClass.MatchString(c) }):
			d.errAt(d.at("expect.status_in"), "expect.status_in.class must be a list of 1xx, 3xx, 4xx, 5xx")
		case slices.Contains(s.Classes, "2xx"):
			d.errAt(d.at("expect.status_in"), "expect.status_in is for refusals; a success expects an exact status")
		}
	case !d.present["expect.status"]:
		d.errAt(d.at("expect"), "expect: missing field status")
	case e.Status != 0 && e.Status < 100 || e.Status > 599:
		d.errAt(d.at("expect.status"), "expect.status %d is not an HTTP status", e.Status)
	}
}

// validateJSONPaths: every expect.json path is a path, or the one derived
// field on an endpoint that has it.
func validateJSONPaths(d *decoder, c *Case) {
	for p := range c.Expect.JSON {
		switch {
		case strings.TrimSpace(p) == "":
			d.errAt(d.at("expect.json["+p+"]"), "expect.json: empty path")
		case p == PathText && !isTemplate(c.Request.Path) && !slices.Contains(TextPaths, c.Request.Path):
			d.errAt(d.keyAt("expect.json["+p+"]"), "expect.json: %s is the generated text of %s answers, not of %s", PathText, strings.Join(TextPaths, " and "), c.Request.Path)
		case strings.HasPrefix(p, "$") && p != PathText:
			d.errAt(d.keyAt("expect.json["+p+"]"), "expect.json: %q is no derived field (the one known is %s)", p, PathText)
		}
	}
}

// validateDiffersFrom: other key kinds, on the model list only; listed,
// on the model list only.
func validateDiffersFrom(d *decoder, c *Case) {
	e := &c.Expect
	for i, k := range e.DiffersFrom {
		switch {
		case !slices.Contains(KeyKinds, k):
			d.errAt(d.at(fmt.Sprintf("expect.differs_from[%d]", i)), "expect.differs_from: %q is not a key kind (%s)", k, joinStrings(KeyKinds))
		case k == c.Key:
			d.errAt(d.at(fmt.Sprintf("expect.differs_from[%d]", i)), "expect.differs_from: %q is the case's own key", k)
		}
	}
	if len(e.DiffersFrom) > 0 && (c.Request.Method != "GET" || c.Request.Path != "/v1/models") {
		d.errAt(d.keyAt("expect.differs_from"), "expect.differs_from applies to GET /v1/models only")
	}
	if e.Listed && (c.Request.Method != "GET" || c.Request.Path != "/v1/models") {
		d.errAt(d.keyAt("expect.listed"), "expect.listed applies to GET /v1/models only")
	}
}

// validateSSE: a stream expectation names a protocol of its endpoint and
// only fields the protocol has (the protocols table), expects a success of
// a streaming request, and leaves the JSON-body checks out; a streaming
// request expecting success has one.
func (l *loader) validateSSE(d *decoder, c *Case) {
	s := c.Expect.SSE
	if s == nil {
		if expectsSuccess(&c.Expect) && stream(&c.Request) {
			d.errAt(d.at("expect"), "a streaming request expecting %d needs expect.sse", c.Expect.Status)
		}
		return
	}
	info := sseProtocol(d, c)
	for _, f := range sseFields {
		if f.refused(s, info) {
			p := "expect.sse." + f.name
			d.errAt(d.at(p), "%s %s", p, f.rule)
		}
	}
	if s.Images != nil {
		l.validateImages(d, "expect.sse.images", s.Images)
	}
	validateStreamed(d, c)
}

// expectsSuccess: the exact status expected is a 2xx.
func expectsSuccess(e *Expect) bool { return e.Status >= 200 && e.Status < 300 }

// sseProtocol checks expect.sse.protocol and returns what the protocol has.
// For an unknown protocol that is every field: the field checks would only
// repeat the protocol's error.
func sseProtocol(d *decoder, c *Case) protocolInfo {
	s := c.Expect.SSE
	info, known := protocols[s.Protocol]
	switch {
	case s.Protocol == "":
		d.errAt(d.at("expect.sse"), "expect.sse: missing field protocol")
	case !known:
		d.errAt(d.at("expect.sse.protocol"), "expect.sse.protocol %q is not one of %s", s.Protocol, joinStrings(Protocols))
	case !isTemplate(c.Request.Path) && c.Request.Path != info.path:
		d.errAt(d.at("expect.sse.protocol"), "expect.sse.protocol %s belongs to %s, not %s", s.Protocol, info.path, c.Request.Path)
	}
	if !known {
		return protocolInfo{image: true, text: true, stopReason: true, finishReason: true}
	}
	return info
}

// sseFields are the fields of expect.sse that only some protocols have:
// each is refused, with its rule, where its protocol lacks it or its value
// is out of range.
var sseFields = []struct {
	name, rule string
	refused    func(s *SSEExpect, p protocolInfo) bool
}{
	{"max_previews", "must be >= 0 and applies to image protocols only", func(s *SSEExpect, p protocolInfo) bool {
		return s.MaxPreviews != nil && (*s.MaxPreviews < 0 || !p.image)
	}},
	{"images", "applies to image protocols only", func(s *SSEExpect, p protocolInfo) bool {
		return s.Images != nil && !p.image
	}},
	{"stop_reason", "applies to the messages protocol only", func(s *SSEExpect, p protocolInfo) bool {
		return s.StopReason != nil && !p.stopReason
	}},
	{"finish_reason", "applies to the chat protocol only", func(s *SSEExpect, p protocolInfo) bool {
		return s.FinishReason != nil && !p.finishReason
	}},
	{"min_text", "must be >= 0 and applies to chat, messages and responses only", func(s *SSEExpect, p protocolInfo) bool {
		return s.MinText < 0 || (s.MinText > 0 && !p.text)
	}},
}

// validateStreamed: a stream is the answer to a streaming request that
// succeeds, and the JSON-body checks do not apply to it.
func validateStreamed(d *decoder, c *Case) {
	e := &c.Expect
	if !expectsSuccess(e) && e.Status != 0 {
		d.errAt(d.keyAt("expect.sse"), "expect.sse needs a 2xx expect.status")
	}
	if !stream(&c.Request) {
		d.errAt(d.keyAt("expect.sse"), "expect.sse needs stream: true in the request")
	}
	if e.Images != nil || e.Schema != "" || len(e.JSON) > 0 {
		d.errAt(d.keyAt("expect.sse"), "expect.sse checks the stream; images, schema and json apply to JSON bodies (use sse.images)")
	}
}

func (l *loader) validateImages(d *decoder, p string, im *ImageExpect) {
	validateTransparency(d, p, im)
	if im.Format != "" && !slices.Contains(ImageFormats, im.Format) {
		d.errAt(d.at(p+".format"), "%s.format %q is not one of png, jpeg, webp", p, im.Format)
	}
	if im.Size != "" && !sizePattern.MatchString(im.Size) {
		d.errAt(d.at(p+".size"), "%s.size %q is not WIDTHxHEIGHT (e.g. 1024x1024)", p, im.Size)
	}
	if im.Count < 0 {
		d.errAt(d.at(p+".count"), "%s.count must be >= 1", p)
	} else if d.present[p+".count"] && im.Count == 0 {
		d.errAt(d.at(p+".count"), "%s.count must be >= 1 (omit it to skip the check)", p)
	}
}

// validateTransparency: real transparency is stated with a threshold in
// range, not with alpha: true (one pixel at 254 would pass), and not beside
// alpha: false.
func validateTransparency(d *decoder, p string, im *ImageExpect) {
	if im.Alpha != nil && *im.Alpha {
		d.errAt(d.at(p+".alpha"), "%s.alpha: true would pass one pixel at alpha 254; state real transparency with transparent: {min_share: 0.05, below_alpha: 128}", p)
	}
	t := im.Transparent
	if t == nil {
		return
	}
	if t.MinShare <= 0 || t.MinShare > 1 || t.BelowAlpha < 1 || t.BelowAlpha > 255 {
		d.errAt(d.at(p+".transparent"), "%s.transparent: min_share must be in (0, 1] and below_alpha in 1..255", p)
	}
	if im.Alpha != nil {
		d.errAt(d.at(p+".transparent"), "%s: transparent and alpha: false contradict each other", p)
	}
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Param returns a top-level request parameter as written (before template
// rendering): a JSON member, or the first multipart text field of that name.
// The engine reads stream, n, size and output_format through it.
func (r *Request) Param(name string) (any, bool) {
	if m, ok := r.JSON.(map[string]any); ok {
		v, ok := m[name]
		return v, ok
	}
	for _, f := range r.Multipart {
		if f.Name == name && f.File == "" {
			return f.Value, true
		}
	}
	return nil, false
}

// ParamText is Param as text: "" when absent or null.
func (r *Request) ParamText(name string) string {
	if v, ok := r.Param(name); ok && v != nil {
		return fmt.Sprint(v)
	}
	return ""
}
