package catalog

import (
	"fmt"
	"io/fs"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"
)

// The loader decodes the goccy/go-yaml AST itself instead of calling
// yaml.Unmarshal with yaml.Strict(): the library's decoder stops at the first
// error of a document, while lint must report every problem of every file,
// each at the node that causes it. Walking the AST also gives the position of
// every field for the semantic checks that follow decoding.

// maxNodes bounds the work of one file; aliases can make a small file
// expand exponentially ("billion laughs").
const maxNodes = 200_000

// maxDepth bounds how deep a free-form value (a JSON body, a matcher's
// value) nests: an alias inside its own anchor (`&a [*a]`) nests without
// end, and each level's path is longer than the last.
const maxDepth = 64

type decoder struct {
	file      string
	diags     *Diagnostics
	anchors   map[string][]*ast.AnchorNode
	budget    int
	fixtures  fs.FS
	fixtureOK map[string]error

	// Per case: where each field path's value and key were given, whether
	// it was non-null, and whether decoding it failed (so the semantic checks
	// do not report the same mistake twice).
	pos     map[string]Pos
	keyPos  map[string]Pos
	present map[string]bool
	failed  map[string]bool
	// Per case: true when a template calls publicImageURL, and where.
	usesPublicURL bool
	publicURLPos  Pos
	// Per case: the body members request.omit leaves out of the file's
	// defaults, and where each is written.
	omit   []string
	omitAt []Pos

	// defaults is the file's defaults: block, nil when it has none.
	defaults *defaults

	// inTemplate is set while decoding request strings, which are templates.
	inTemplate bool

	// depth is how deep toAny is; tooDeep is set once it went past maxDepth
	// (reported once per file).
	depth   int
	tooDeep bool
}

func newDecoder(file string, diags *Diagnostics, fixtures fs.FS) *decoder {
	d := &decoder{
		file: file, diags: diags, anchors: map[string][]*ast.AnchorNode{}, budget: maxNodes,
		fixtures: fixtures, fixtureOK: map[string]error{},
	}
	d.resetCase()
	return d
}

// resetCase clears the per-case state.
func (d *decoder) resetCase() {
	d.pos, d.keyPos, d.present, d.failed = map[string]Pos{}, map[string]Pos{}, map[string]bool{}, map[string]bool{}
	d.usesPublicURL = false
	d.omit, d.omitAt = nil, nil
}

// mismatch reports a value of the wrong kind at path.
func (d *decoder) mismatch(n ast.Node, path, format string, args ...any) {
	d.failed[path] = true
	d.errf(n, path+": "+format, args...)
}

func (d *decoder) errAt(p Pos, format string, args ...any) {
	if !p.valid() {
		p = Pos{1, 1}
	}
	if p.Col < 1 {
		p.Col = 1
	}
	*d.diags = append(*d.diags, Diagnostic{File: d.file, Line: p.Line, Col: p.Col, Message: fmt.Sprintf(format, args...)})
}

func (d *decoder) errf(n ast.Node, format string, args ...any) {
	d.errAt(nodePos(n), format, args...)
}

// nodePos is where a node starts. A block mapping's own token is the ':' of
// its first pair, so it reports its first key instead.
func nodePos(n ast.Node) Pos {
	if n == nil || reflect.ValueOf(n).IsNil() {
		return Pos{}
	}
	switch t := n.(type) {
	case *ast.MappingNode:
		if !t.IsFlowStyle && len(t.Values) > 0 {
			return nodePos(t.Values[0])
		}
	case *ast.MappingValueNode:
		if t.Key != nil {
			return nodePos(t.Key)
		}
	case *ast.LiteralNode:
		if t.Start != nil {
			return tokenPos(t.Start.Position.Line, t.Start.Position.Column)
		}
	}
	tk := n.GetToken()
	if tk == nil || tk.Position == nil {
		return Pos{}
	}
	return tokenPos(tk.Position.Line, tk.Position.Column)
}

func tokenPos(line, col int) Pos {
	if line < 1 {
		line = 1
	}
	if col < 1 {
		col = 1
	}
	return Pos{line, col}
}

// collectAnchors indexes every anchor of a document so aliases resolve to
// the last anchor of that name defined before them, as YAML specifies.
func (d *decoder) collectAnchors(root ast.Node) {
	for _, n := range ast.Filter(ast.AnchorType, root) {
		a, ok := n.(*ast.AnchorNode)
		if !ok || a.Name == nil {
			continue
		}
		name := a.Name.GetToken().Value
		d.anchors[name] = append(d.anchors[name], a)
	}
}

func (d *decoder) lookupAlias(al *ast.AliasNode) ast.Node {
	if al.Value == nil {
		d.errf(al, "alias without a name")
		return nil
	}
	name := al.Value.GetToken().Value
	at := nodePos(al)
	var found *ast.AnchorNode
	for _, a := range d.anchors[name] {
		ap := nodePos(a)
		if ap.Line < at.Line || (ap.Line == at.Line && ap.Col < at.Col) {
			found = a
		}
	}
	if found == nil {
		d.errf(al, "alias *%s refers to no anchor defined before it", name)
		return nil
	}
	return found.Value
}

// resolve strips anchors, follows aliases and applies the !!str tag. It
// returns nil after reporting a problem; a nil result from a nil input means
// an absent value.
func (d *decoder) resolve(n ast.Node) ast.Node {
	for range 64 {
		if n == nil || reflect.ValueOf(n).IsNil() {
			return nil
		}
		switch t := n.(type) {
		case *ast.AnchorNode:
			n = t.Value
		case *ast.AliasNode:
			n = d.lookupAlias(t)
			if n == nil {
				return nil
			}
		case *ast.TagNode:
			tag := t.Start.Value
			inner := d.resolve(t.Value)
			if inner == nil {
				return nil
			}
			if tag != "!!str" {
				d.errf(t, "YAML tag %s is not supported (only !!str)", tag)
				return nil
			}
			text, ok := scalarText(inner)
			if !ok {
				d.errf(t, "!!str needs a scalar, got %s", kindOf(inner))
				return nil
			}
			return &ast.StringNode{BaseNode: &ast.BaseNode{}, Token: inner.GetToken(), Value: text}
		default:
			return n
		}
	}
	d.errf(n, "aliases nest too deeply")
	return nil
}

// isNull reports a null or missing value.
func isNull(n ast.Node) bool {
	if n == nil || reflect.ValueOf(n).IsNil() {
		return true
	}
	_, ok := n.(*ast.NullNode)
	return ok
}

// scalarText is the text of a scalar as written (numbers and booleans
// included, so "n: 2" can feed a string field); false for collections and null.
func scalarText(n ast.Node) (string, bool) {
	switch t := n.(type) {
	case *ast.StringNode:
		return t.Value, true
	case *ast.LiteralNode:
		if t.Value == nil {
			return "", true
		}
		return t.Value.Value, true
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.InfinityNode, *ast.NanNode:
		return n.GetToken().Value, true
	}
	return "", false
}

// kindOf names a node's kind for messages.
func kindOf(n ast.Node) string {
	switch n.(type) {
	case nil:
		return "nothing"
	case *ast.MappingNode:
		return "a mapping"
	case *ast.SequenceNode:
		return "a list"
	case *ast.StringNode, *ast.LiteralNode:
		return "a string"
	case *ast.IntegerNode:
		return "an integer"
	case *ast.FloatNode, *ast.InfinityNode, *ast.NanNode:
		return "a number"
	case *ast.BoolNode:
		return "a boolean"
	case *ast.NullNode:
		return "null"
	}
	return "an unsupported YAML node"
}

type pair struct {
	key     string
	keyNode ast.Node
	value   ast.Node
}

// pairs lists a mapping's entries with merge keys (<<) expanded; keys given
// explicitly win over merged ones.
func (d *decoder) pairs(m *ast.MappingNode) []pair {
	return d.pairsDepth(m, 0)
}

func (d *decoder) pairsDepth(m *ast.MappingNode, depth int) []pair {
	if depth > 16 {
		d.errf(m, "merge keys nest too deeply")
		return nil
	}
	var out []pair
	explicit := map[string]bool{}
	for _, mv := range m.Values {
		if _, merge := mv.Key.(*ast.MergeKeyNode); merge {
			continue
		}
		if k, ok := d.keyText(mv.Key); ok {
			explicit[k] = true
		}
	}
	seen := map[string]bool{}
	for _, mv := range m.Values {
		if mv == nil || mv.Key == nil {
			continue
		}
		if _, merge := mv.Key.(*ast.MergeKeyNode); merge {
			var srcs []*ast.MappingNode
			switch v := d.resolve(mv.Value).(type) {
			case *ast.MappingNode:
				srcs = append(srcs, v)
			case *ast.SequenceNode:
				for _, e := range v.Values {
					if mm, ok := d.resolve(e).(*ast.MappingNode); ok {
						srcs = append(srcs, mm)
					} else {
						d.errf(e, "a merge key (<<) takes mappings")
					}
				}
			default:
				d.errf(mv.Value, "a merge key (<<) takes a mapping or a list of mappings")
			}
			for _, src := range srcs {
				for _, p := range d.pairsDepth(src, depth+1) {
					if !explicit[p.key] && !seen[p.key] {
						seen[p.key] = true
						out = append(out, p)
					}
				}
			}
			continue
		}
		k, ok := d.keyText(mv.Key)
		if !ok {
			d.errf(mv.Key, "a key must be a string, got %s", kindOf(d.resolve(keyValue(mv.Key))))
			continue
		}
		if seen[k] {
			d.errf(mv.Key, "duplicate key %q", k)
			continue
		}
		seen[k] = true
		out = append(out, pair{key: k, keyNode: mv.Key, value: mv.Value})
	}
	return out
}

func keyValue(k ast.MapKeyNode) ast.Node {
	if mk, ok := k.(*ast.MappingKeyNode); ok {
		return mk.Value
	}
	return k
}

func (d *decoder) keyText(k ast.MapKeyNode) (string, bool) {
	if k == nil || reflect.ValueOf(k).IsNil() {
		return "", false
	}
	n := d.resolve(keyValue(k))
	if n == nil {
		return "", false
	}
	return scalarText(n)
}

var (
	matcherType         = reflect.TypeFor[Matcher]()
	requestType         = reflect.TypeFor[Request]()
	variantType         = reflect.TypeFor[Variant]()
	requestDefaultsType = reflect.TypeFor[requestDefaults]()
)

// nouns name the structs in "unknown field" messages.
var nouns = map[reflect.Type]string{
	reflect.TypeFor[Case]():         "case",
	requestType:                     "request",
	variantType:                     "variant",
	reflect.TypeFor[Expect]():       "expect",
	reflect.TypeFor[ImageExpect]():  "images",
	reflect.TypeFor[SSEExpect]():    "sse",
	reflect.TypeFor[matcherOps]():   "matcher",
	reflect.TypeFor[exploreEntry](): "explore domain",
	reflect.TypeFor[SpecRow]():      "requirement row",
	reflect.TypeFor[fileDefaults](): "defaults",
	requestDefaultsType:             "defaults request",
}

// templated are the Request fields whose strings are templates.
var templated = map[string]bool{"path": true, "raw": true, "headers": true, "json": true}

// defaultsTemplated are the requestDefaults fields whose strings are templates.
var defaultsTemplated = map[string]bool{"path": true, "model": true}

// Request fields decoded by hand (fieldInfo.index): they are not plain
// values of the struct.
const (
	fieldMultipart = -1 // Request.Multipart: an ordered mapping
	fieldOmit      = -2 // request.omit: decoding state, applied with the defaults
)

type fieldInfo struct {
	name  string
	index int
}

// fieldsOf lists a struct's YAML fields in declaration order.
func fieldsOf(t reflect.Type) []fieldInfo {
	var out []fieldInfo
	for i := range t.NumField() {
		f := t.Field(i)
		tag := strings.Split(f.Tag.Get("yaml"), ",")[0]
		if tag == "-" || !f.IsExported() {
			continue
		}
		if tag == "" {
			tag = strings.ToLower(f.Name)
		}
		out = append(out, fieldInfo{tag, i})
	}
	if t == requestType {
		// Multipart is yaml:"-" (it is not a plain list) and is decoded by
		// hand; omit names members of the file's defaults to leave out of
		// the body, and leaves no trace in the Request.
		out = append(out, fieldInfo{"multipart", fieldMultipart}, fieldInfo{"omit", fieldOmit})
	}
	return out
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func (d *decoder) record(path string, key, n ast.Node) {
	if path == "" {
		return
	}
	if _, ok := d.pos[path]; !ok {
		d.pos[path] = nodePos(n)
		d.keyPos[path] = nodePos(key)
	}
	d.present[path] = !isNull(n)
}

// decode fills v from n, reporting every mismatch.
func (d *decoder) decode(n ast.Node, v reflect.Value, path string) {
	if d.budget--; d.budget == 0 {
		d.errf(n, "file too large: more than %d YAML nodes after alias expansion", maxNodes)
	}
	if d.budget <= 0 {
		return
	}
	n = d.resolve(n)
	if n == nil {
		return
	}
	switch v.Type() {
	case matcherType:
		d.decodeMatcher(n, v.Addr().Interface().(*Matcher), path)
		return
	case specRefsType:
		d.decodeSpecRefs(n, v.Addr().Interface().(*SpecRefs), path)
		return
	}
	null := isNull(n)
	switch v.Kind() {
	case reflect.Pointer:
		if null {
			return
		}
		p := reflect.New(v.Type().Elem())
		d.decode(n, p.Elem(), path)
		v.Set(p)
	case reflect.Struct:
		d.decodeStruct(n, v, path)
	case reflect.String:
		if null {
			return
		}
		s, ok := scalarText(n)
		if !ok {
			d.mismatch(n, path, "expected a string, got %s", kindOf(n))
			return
		}
		if d.inTemplate {
			d.checkTemplate(n, s)
		}
		v.SetString(s)
	case reflect.Int, reflect.Int64, reflect.Int32:
		if null {
			return
		}
		in, ok := n.(*ast.IntegerNode)
		if !ok {
			d.mismatch(n, path, "expected an integer, got %s", kindOf(n))
			return
		}
		i, ok := intOf(in.Value)
		if !ok || v.OverflowInt(i) {
			d.mismatch(n, path, "integer %s out of range", in.GetToken().Value)
			return
		}
		v.SetInt(i)
	case reflect.Bool:
		if null {
			return
		}
		b, ok := n.(*ast.BoolNode)
		if !ok {
			d.mismatch(n, path, "expected true or false, got %s", kindOf(n))
			return
		}
		v.SetBool(b.Value)
	case reflect.Float64:
		if null {
			return
		}
		switch t := n.(type) {
		case *ast.IntegerNode:
			i, _ := intOf(t.Value)
			v.SetFloat(float64(i))
		case *ast.FloatNode:
			v.SetFloat(t.Value)
		default:
			d.mismatch(n, path, "expected a number, got %s", kindOf(n))
		}
	case reflect.Slice:
		if null {
			return
		}
		seq, ok := n.(*ast.SequenceNode)
		if !ok {
			d.mismatch(n, path, "expected a list, got %s", kindOf(n))
			return
		}
		out := reflect.MakeSlice(v.Type(), len(seq.Values), len(seq.Values))
		for i, e := range seq.Values {
			d.decode(e, out.Index(i), fmt.Sprintf("%s[%d]", path, i))
		}
		v.Set(out)
	case reflect.Map:
		if null {
			return
		}
		m, ok := n.(*ast.MappingNode)
		if !ok {
			d.mismatch(n, path, "expected a mapping, got %s", kindOf(n))
			return
		}
		out := reflect.MakeMap(v.Type())
		for _, p := range d.pairs(m) {
			ev := reflect.New(v.Type().Elem()).Elem()
			sub := path + "[" + p.key + "]"
			d.record(sub, p.keyNode, p.value)
			d.decode(p.value, ev, sub)
			out.SetMapIndex(reflect.ValueOf(p.key).Convert(v.Type().Key()), ev)
		}
		v.Set(out)
	case reflect.Interface:
		if x := d.toAny(n, path); x != nil {
			v.Set(reflect.ValueOf(x))
		}
	default:
		d.errf(n, "%s: cannot decode into %s", path, v.Type())
	}
}

func intOf(x any) (int64, bool) {
	switch i := x.(type) {
	case int64:
		return i, true
	case uint64:
		if i > math.MaxInt64 {
			return 0, false
		}
		return int64(i), true
	case int:
		return int64(i), true
	}
	return 0, false
}

func (d *decoder) decodeStruct(n ast.Node, v reflect.Value, path string) {
	if isNull(n) {
		return
	}
	m, ok := n.(*ast.MappingNode)
	noun := nouns[v.Type()]
	if noun == "" {
		noun = v.Type().Name()
	}
	if !ok {
		where := path
		if where == "" {
			where = noun
		}
		d.failed[path] = true
		d.errf(n, "%s: expected a mapping, got %s", where, kindOf(n))
		return
	}
	fields := fieldsOf(v.Type())
	for _, p := range d.pairs(m) {
		i := slices.IndexFunc(fields, func(f fieldInfo) bool { return f.name == p.key })
		if i < 0 {
			d.errf(p.keyNode, "unknown field %q in %s%s", p.key, noun, suggest(p.key, fields))
			continue
		}
		sub := join(path, p.key)
		d.record(sub, p.keyNode, p.value)
		f := fields[i]
		switch f.index {
		case fieldMultipart:
			d.decodeMultipart(p.value, &v.Addr().Interface().(*Request).Multipart, sub)
			continue
		case fieldOmit:
			d.decodeOmit(p.value, sub)
			continue
		}
		was := d.inTemplate
		if (v.Type() == requestType && templated[p.key]) || (v.Type() == variantType && p.key == "json") ||
			(v.Type() == requestDefaultsType && defaultsTemplated[p.key]) {
			d.inTemplate = true
		}
		d.decode(p.value, v.Field(f.index), sub)
		d.inTemplate = was
	}
}

// suggest names the closest known field, or lists them all.
func suggest(key string, fields []fieldInfo) string {
	best, bestD := "", 3
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.name
		if dist := editDistance(key, f.name); dist < bestD {
			best, bestD = f.name, dist
		}
	}
	if best != "" {
		return fmt.Sprintf("; did you mean %q?", best)
	}
	return "; known fields: " + strings.Join(names, ", ")
}

func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 99
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// toAny turns a node into plain JSON-compatible Go values: map[string]any,
// []any, string, int64/uint64, float64, bool, nil.
func (d *decoder) toAny(n ast.Node, path string) any {
	if d.budget--; d.budget <= 0 {
		return nil
	}
	d.depth++
	defer func() { d.depth-- }()
	if d.depth > maxDepth {
		if !d.tooDeep {
			d.tooDeep = true
			d.errf(n, "%s: nests deeper than %d levels (an alias inside its own anchor?)", path, maxDepth)
		}
		return nil
	}
	n = d.resolve(n)
	switch t := n.(type) {
	case nil, *ast.NullNode:
		return nil
	case *ast.BoolNode:
		return t.Value
	case *ast.IntegerNode:
		return t.Value
	case *ast.FloatNode:
		return t.Value
	case *ast.InfinityNode, *ast.NanNode:
		d.errf(n, "%s: %s cannot be sent as JSON", path, t.GetToken().Value)
		return nil
	case *ast.StringNode, *ast.LiteralNode:
		s, _ := scalarText(n)
		if d.inTemplate {
			d.checkTemplate(n, s)
		}
		return s
	case *ast.SequenceNode:
		out := make([]any, len(t.Values))
		for i, e := range t.Values {
			out[i] = d.toAny(e, fmt.Sprintf("%s[%d]", path, i))
		}
		return out
	case *ast.MappingNode:
		out := map[string]any{}
		for _, p := range d.pairs(t) {
			out[p.key] = d.toAny(p.value, join(path, p.key))
		}
		return out
	}
	d.errf(n, "%s: unsupported YAML value", path)
	return nil
}

// matcherOps is Matcher without its UnmarshalYAML, for decoding the
// operator form field by field.
type matcherOps Matcher

// MatcherTypes are the values of a matcher's type operator.
var MatcherTypes = []string{"string", "number", "integer", "boolean", "array", "object", "null"}

func (d *decoder) decodeMatcher(n ast.Node, m *Matcher, path string) {
	switch t := n.(type) {
	case *ast.SequenceNode:
		d.errf(n, "%s: a matcher is a value or a mapping of operators; compare a list with {eq: [...]}", path)
	case *ast.MappingNode:
		var ops matcherOps
		d.decodeStruct(n, reflect.ValueOf(&ops).Elem(), path)
		*m = Matcher(ops)
		given := 0
		for _, p := range d.pairs(t) {
			given++
			if p.key == "eq" {
				m.HasEquals = true
			}
		}
		if given == 0 {
			d.errf(n, "%s: empty matcher; give a value or at least one operator (eq, exists, type, one_of, regex, min, max, not_empty, contains, model, unix_seconds, if_present)", path)
		}
		if m.Exists != nil && !*m.Exists && given > 1 {
			d.errf(n, "%s: exists: false cannot be combined with other operators", path)
		}
		if m.Type != "" && !slices.Contains(MatcherTypes, m.Type) {
			d.errAt(d.pos[path+".type"], "%s: type %q is not one of %s", path, m.Type, strings.Join(MatcherTypes, ", "))
		}
		if m.Regex != "" {
			if _, err := compileRegex(m.Regex); err != nil {
				d.errAt(d.pos[path+".regex"], "%s: invalid regex: %v", path, err)
			}
		}
		if m.Model != "" && m.Model != ModelRequested && m.Model != ModelExact {
			d.errAt(d.pos[path+".model"], "%s: model %q is not %s or %s", path, m.Model, ModelRequested, ModelExact)
		}
		if u := m.UnixSeconds; u != "" && u != UnixSecondsPlausible {
			if w, err := time.ParseDuration(u); err != nil || w <= 0 {
				d.errAt(d.pos[path+".unix_seconds"], "%s: unix_seconds %q is neither %s nor a positive duration such as 15m", path, u, UnixSecondsPlausible)
			}
		}
		if m.IfPresent && given == 1 {
			d.errf(n, "%s: if_present needs another operator to apply", path)
		}
		if m.Min != nil && m.Max != nil && *m.Min > *m.Max {
			d.errAt(d.pos[path+".min"], "%s: min %v is greater than max %v", path, *m.Min, *m.Max)
		}
		if d.present[path+".one_of"] && len(m.OneOf) == 0 {
			d.errAt(d.pos[path+".one_of"], "%s: one_of needs at least one value", path)
		}
	default:
		m.Equals = d.toAny(n, path)
		m.HasEquals = true
	}
}

// decodeMultipart reads the form as an ordered mapping: field → string, or
// field → list of strings for a repeated field; "@name" is a fixture file.
func (d *decoder) decodeMultipart(n ast.Node, out *[]FormField, path string) {
	n = d.resolve(n)
	if isNull(n) {
		return
	}
	m, ok := n.(*ast.MappingNode)
	if !ok {
		d.errf(n, "%s: expected a mapping of field names to values, got %s", path, kindOf(n))
		return
	}
	fields := []FormField{}
	add := func(name string, vn ast.Node) {
		vn = d.resolve(vn)
		if vn == nil {
			return
		}
		s, ok := scalarText(vn)
		if !ok {
			d.errf(vn, "%s.%s: expected a string or a list of strings, got %s", path, name, kindOf(vn))
			return
		}
		if file, isFile := strings.CutPrefix(s, "@"); isFile {
			d.checkFixture(vn, file)
			fields = append(fields, FormField{Name: name, File: file})
			return
		}
		was := d.inTemplate
		d.inTemplate = true
		d.checkTemplate(vn, s)
		d.inTemplate = was
		fields = append(fields, FormField{Name: name, Value: s})
	}
	for _, p := range d.pairs(m) {
		if p.key == "" {
			d.errf(p.keyNode, "%s: empty field name", path)
			continue
		}
		switch v := d.resolve(p.value).(type) {
		case nil:
		case *ast.SequenceNode:
			if len(v.Values) == 0 {
				d.errf(v, "%s.%s: empty list; omit the field instead", path, p.key)
			}
			for _, e := range v.Values {
				add(p.key, e)
			}
		case *ast.NullNode:
			d.errf(p.keyNode, "%s.%s: no value", path, p.key)
		default:
			add(p.key, v)
		}
	}
	if len(fields) == 0 && len(m.Values) == 0 {
		d.errf(n, "%s: no fields", path)
	}
	*out = fields
}

// checkFixture reports a fixture name that is not a file of the fixtures FS.
func (d *decoder) checkFixture(n ast.Node, name string) bool {
	if err := d.fixtureErr(name); err != nil {
		d.errf(n, "%v", err)
		return false
	}
	return true
}

func (d *decoder) fixtureErr(name string) error {
	if err, ok := d.fixtureOK[name]; ok {
		return err
	}
	var err error
	switch {
	case name == "":
		err = fmt.Errorf("empty fixture name")
	case !fs.ValidPath(name) || strings.Contains(name, "\\"):
		err = fmt.Errorf("fixture name %s is not a path inside fixtures/", strconv.Quote(name))
	case d.fixtures == nil:
		err = fmt.Errorf("fixture %s not found (no fixtures given)", strconv.Quote(name))
	default:
		if st, serr := fs.Stat(d.fixtures, name); serr != nil || st.IsDir() {
			err = fmt.Errorf("fixture %s not found in fixtures/", strconv.Quote(name))
		}
	}
	d.fixtureOK[name] = err
	return err
}
