package catalog

import (
	"cmp"
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

// pairsDepth is pairs of a mapping that merge keys reached depth levels
// down.
func (d *decoder) pairsDepth(m *ast.MappingNode, depth int) []pair {
	if depth > 16 {
		d.errf(m, "merge keys nest too deeply")
		return nil
	}
	explicit := d.explicitKeys(m)
	var out []pair
	seen := map[string]bool{}
	keep := func(p pair) {
		seen[p.key] = true
		out = append(out, p)
	}
	for _, mv := range m.Values {
		if mv == nil || mv.Key == nil {
			continue
		}
		if isMergeKey(mv.Key) {
			for _, p := range d.mergedPairs(mv.Value, depth) {
				if !explicit[p.key] && !seen[p.key] {
					keep(p)
				}
			}
			continue
		}
		if p, ok := d.explicitPair(mv, seen); ok {
			keep(p)
		}
	}
	return out
}

func isMergeKey(k ast.MapKeyNode) bool {
	_, ok := k.(*ast.MergeKeyNode)
	return ok
}

// explicitKeys are the keys a mapping gives itself: they win over merged
// ones wherever the merge key stands.
func (d *decoder) explicitKeys(m *ast.MappingNode) map[string]bool {
	explicit := map[string]bool{}
	for _, mv := range m.Values {
		if isMergeKey(mv.Key) {
			continue
		}
		if k, ok := d.keyText(mv.Key); ok {
			explicit[k] = true
		}
	}
	return explicit
}

// mergedPairs are the pairs a merge key brings in: its mapping's, or those
// of each mapping of its list, in order.
func (d *decoder) mergedPairs(n ast.Node, depth int) []pair {
	var srcs []*ast.MappingNode
	switch v := d.resolve(n).(type) {
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
		d.errf(n, "a merge key (<<) takes a mapping or a list of mappings")
	}
	var out []pair
	for _, src := range srcs {
		out = append(out, d.pairsDepth(src, depth+1)...)
	}
	return out
}

// explicitPair is the pair of a key written in the mapping, or false after
// reporting a key that is no string or that came before (seen).
func (d *decoder) explicitPair(mv *ast.MappingValueNode, seen map[string]bool) (pair, bool) {
	k, ok := d.keyText(mv.Key)
	if !ok {
		d.errf(mv.Key, "a key must be a string, got %s", kindOf(d.resolve(keyValue(mv.Key))))
		return pair{}, false
	}
	if seen[k] {
		d.errf(mv.Key, "duplicate key %q", k)
		return pair{}, false
	}
	return pair{key: k, keyNode: mv.Key, value: mv.Value}, true
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

// templated are the fields whose strings are templates, by struct.
var templated = map[reflect.Type]map[string]bool{
	requestType:         {"path": true, "raw": true, "headers": true, "json": true},
	variantType:         {"json": true},
	requestDefaultsType: {"path": true, "model": true},
}

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
	if !d.spend(n) {
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
	switch decodeKind, ok := kindDecoders[v.Kind()]; {
	case !ok:
		d.errf(n, "%s: cannot decode into %s", path, v.Type())
	case isNull(n) && v.Kind() != reflect.Interface:
		// Null leaves the value as it is. An interface takes it from toAny,
		// which counts it against the budget like any other node.
	default:
		decodeKind(d, n, v, path)
	}
}

// spend counts one node against the file's budget: false once the budget is
// spent, which is reported once, at the node that spent it.
func (d *decoder) spend(n ast.Node) bool {
	if d.budget--; d.budget == 0 {
		d.errf(n, "file too large: more than %d YAML nodes after alias expansion", maxNodes)
	}
	return d.budget > 0
}

// kindDecoders decode a resolved node into a value of each kind the case
// file types have. init fills the table: the decoders of collections call
// decode, which reads it, and a package-level initializer may not refer to
// itself.
var kindDecoders map[reflect.Kind]func(d *decoder, n ast.Node, v reflect.Value, path string)

func init() {
	kindDecoders = map[reflect.Kind]func(*decoder, ast.Node, reflect.Value, string){
		reflect.Pointer:   (*decoder).decodePointer,
		reflect.Struct:    (*decoder).decodeStruct,
		reflect.String:    (*decoder).decodeString,
		reflect.Int:       (*decoder).decodeInt,
		reflect.Int64:     (*decoder).decodeInt,
		reflect.Int32:     (*decoder).decodeInt,
		reflect.Bool:      (*decoder).decodeBool,
		reflect.Float64:   (*decoder).decodeFloat,
		reflect.Slice:     (*decoder).decodeSlice,
		reflect.Map:       (*decoder).decodeMap,
		reflect.Interface: (*decoder).decodeInterface,
	}
}

func (d *decoder) decodePointer(n ast.Node, v reflect.Value, path string) {
	p := reflect.New(v.Type().Elem())
	d.decode(n, p.Elem(), path)
	v.Set(p)
}

func (d *decoder) decodeString(n ast.Node, v reflect.Value, path string) {
	s, ok := scalarText(n)
	if !ok {
		d.mismatch(n, path, "expected a string, got %s", kindOf(n))
		return
	}
	if d.inTemplate {
		d.checkTemplate(n, s)
	}
	v.SetString(s)
}

func (d *decoder) decodeInt(n ast.Node, v reflect.Value, path string) {
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
}

func (d *decoder) decodeBool(n ast.Node, v reflect.Value, path string) {
	b, ok := n.(*ast.BoolNode)
	if !ok {
		d.mismatch(n, path, "expected true or false, got %s", kindOf(n))
		return
	}
	v.SetBool(b.Value)
}

// decodeFloat takes an integer as a number too (min: 0).
func (d *decoder) decodeFloat(n ast.Node, v reflect.Value, path string) {
	switch t := n.(type) {
	case *ast.IntegerNode:
		i, _ := intOf(t.Value)
		v.SetFloat(float64(i))
	case *ast.FloatNode:
		v.SetFloat(t.Value)
	default:
		d.mismatch(n, path, "expected a number, got %s", kindOf(n))
	}
}

// decodeSlice names each item path[i].
func (d *decoder) decodeSlice(n ast.Node, v reflect.Value, path string) {
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
}

// decodeMap names each entry path[key] and records where it is written.
func (d *decoder) decodeMap(n ast.Node, v reflect.Value, path string) {
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
}

// decodeInterface takes a free-form value (a JSON body, a matcher's value);
// null leaves it nil.
func (d *decoder) decodeInterface(n ast.Node, v reflect.Value, path string) {
	if x := d.toAny(n, path); x != nil {
		v.Set(reflect.ValueOf(x))
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

// decodeStruct fills a struct from a mapping, field by field; decode has
// left out null.
func (d *decoder) decodeStruct(n ast.Node, v reflect.Value, path string) {
	m, ok := n.(*ast.MappingNode)
	if !ok {
		d.failed[path] = true
		d.errf(n, "%s: expected a mapping, got %s", cmp.Or(path, nounOf(v.Type())), kindOf(n))
		return
	}
	fields := fieldsOf(v.Type())
	for _, p := range d.pairs(m) {
		i := slices.IndexFunc(fields, func(f fieldInfo) bool { return f.name == p.key })
		if i < 0 {
			d.errf(p.keyNode, "unknown field %q in %s%s", p.key, nounOf(v.Type()), suggest(p.key, fields))
			continue
		}
		sub := join(path, p.key)
		d.record(sub, p.keyNode, p.value)
		d.decodeField(p.value, v, fields[i], sub)
	}
}

// nounOf names a struct in messages.
func nounOf(t reflect.Type) string {
	return cmp.Or(nouns[t], t.Name())
}

// decodeField decodes the value of field f of the struct v. The request's
// multipart and omit are read by hand; the strings of a templated field are
// checked as templates, down to the strings nested in it.
func (d *decoder) decodeField(n ast.Node, v reflect.Value, f fieldInfo, path string) {
	switch f.index {
	case fieldMultipart:
		d.decodeMultipart(n, &v.Addr().Interface().(*Request).Multipart, path)
	case fieldOmit:
		d.decodeOmit(n, path)
	default:
		was := d.inTemplate
		d.inTemplate = was || templated[v.Type()][f.name]
		d.decode(n, v.Field(f.index), path)
		d.inTemplate = was
	}
}

// suggest names the closest known field, or lists them all.
func suggest(key string, fields []fieldInfo) string {
	best, bestD := "", 3
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.name
		if dist := EditDistance(key, f.name); dist < bestD {
			best, bestD = f.name, dist
		}
	}
	if best != "" {
		return fmt.Sprintf("; did you mean %q?", best)
	}
	return "; known fields: " + strings.Join(names, ", ")
}

// EditDistance is the Levenshtein distance of two short strings (99 when
// either is longer than 64 bytes): how near a name is to a known one, for
// a did-you-mean.
func EditDistance(a, b string) int {
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
	if !d.spend(n) {
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

// decodeMatcher reads a matcher: a value to equal, or a mapping of
// operators.
func (d *decoder) decodeMatcher(n ast.Node, m *Matcher, path string) {
	switch t := n.(type) {
	case *ast.SequenceNode:
		d.errf(n, "%s: a matcher is a value or a mapping of operators; compare a list with {eq: [...]}", path)
	case *ast.MappingNode:
		d.decodeOperators(t, m, path)
	default:
		m.Equals = d.toAny(n, path)
		m.HasEquals = true
	}
}

// decodeOperators reads a matcher's operators and checks that they combine
// and that each value is one the operator takes.
func (d *decoder) decodeOperators(n *ast.MappingNode, m *Matcher, path string) {
	var ops matcherOps
	d.decodeStruct(n, reflect.ValueOf(&ops).Elem(), path)
	*m = Matcher(ops)
	given := 0
	for _, p := range d.pairs(n) {
		given++
		if p.key == "eq" {
			m.HasEquals = true
		}
	}
	d.checkOperatorsCombine(n, m, path, given)
	d.checkOperatorValues(m, path)
	d.checkSatisfiable(m, path)
}

// checkOperatorsCombine: at least one operator, exists: false alone, and
// if_present with another to apply.
func (d *decoder) checkOperatorsCombine(n ast.Node, m *Matcher, path string, given int) {
	if given == 0 {
		d.errf(n, "%s: empty matcher; give a value or at least one operator (eq, exists, type, one_of, regex, min, max, not_empty, contains, model, unix_seconds, if_present)", path)
	}
	if m.Exists != nil && !*m.Exists && given > 1 {
		d.errf(n, "%s: exists: false cannot be combined with other operators", path)
	}
	if m.IfPresent && given == 1 {
		d.errf(n, "%s: if_present needs another operator to apply", path)
	}
}

// checkOperatorValues: type, regex, model and unix_seconds take only the
// values the engine knows how to judge.
func (d *decoder) checkOperatorValues(m *Matcher, path string) {
	if m.Type != "" && !slices.Contains(MatcherTypes, m.Type) {
		d.errAt(d.pos[path+".type"], "%s: type %q is not one of %s", path, m.Type, strings.Join(MatcherTypes, ", "))
	}
	if m.Regex != "" {
		if _, err := compileRegex(m.Regex); err != nil {
			d.errAt(d.pos[path+".regex"], "%s: invalid regex: %v", path, err)
		}
	}
	if m.Model != "" && !slices.Contains(matcherModels, m.Model) {
		d.errAt(d.pos[path+".model"], "%s: model %q is not %s or %s", path, m.Model, ModelRequested, ModelExact)
	}
	if u := m.UnixSeconds; u != "" && !validUnixSeconds(u) {
		d.errAt(d.pos[path+".unix_seconds"], "%s: unix_seconds %q is neither %s nor a positive duration such as 15m", path, u, UnixSecondsPlausible)
	}
}

// matcherModels are the values of a matcher's model operator.
var matcherModels = []string{ModelRequested, ModelExact}

// validUnixSeconds: plausible, or plausible within a positive window.
func validUnixSeconds(s string) bool {
	if s == UnixSecondsPlausible {
		return true
	}
	w, err := time.ParseDuration(s)
	return err == nil && w > 0
}

// checkSatisfiable: a range or a set of values no value can meet would fail
// every answer.
func (d *decoder) checkSatisfiable(m *Matcher, path string) {
	if m.Min != nil && m.Max != nil && *m.Min > *m.Max {
		d.errAt(d.pos[path+".min"], "%s: min %v is greater than max %v", path, *m.Min, *m.Max)
	}
	if d.present[path+".one_of"] && len(m.OneOf) == 0 {
		d.errAt(d.pos[path+".one_of"], "%s: one_of needs at least one value", path)
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
	for _, p := range d.pairs(m) {
		if p.key == "" {
			d.errf(p.keyNode, "%s: empty field name", path)
			continue
		}
		fields = append(fields, d.formFields(p, path)...)
	}
	if len(fields) == 0 && len(m.Values) == 0 {
		d.errf(n, "%s: no fields", path)
	}
	*out = fields
}

// formFields are the parts of one field of the form: one, or one per item
// of a list (a repeated field, such as image[]).
func (d *decoder) formFields(p pair, path string) []FormField {
	var items []ast.Node
	switch v := d.resolve(p.value).(type) {
	case nil:
		return nil
	case *ast.SequenceNode:
		if len(v.Values) == 0 {
			d.errf(v, "%s.%s: empty list; omit the field instead", path, p.key)
		}
		items = v.Values
	case *ast.NullNode:
		d.errf(p.keyNode, "%s.%s: no value", path, p.key)
		return nil
	default:
		items = []ast.Node{v}
	}
	var out []FormField
	for _, item := range items {
		if f, ok := d.formField(p.key, item, path); ok {
			out = append(out, f)
		}
	}
	return out
}

// formField is one part: a fixture file for "@name", else a text template.
func (d *decoder) formField(name string, n ast.Node, path string) (FormField, bool) {
	n = d.resolve(n)
	if n == nil {
		return FormField{}, false
	}
	s, ok := scalarText(n)
	if !ok {
		d.errf(n, "%s.%s: expected a string or a list of strings, got %s", path, name, kindOf(n))
		return FormField{}, false
	}
	if file, isFile := strings.CutPrefix(s, "@"); isFile {
		d.checkFixture(n, file)
		return FormField{Name: name, File: file}, true
	}
	d.checkTemplate(n, s)
	return FormField{Name: name, Value: s}, true
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
