package catalog

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"

	"github.com/gwconform/gwconform/conformance/pairwise"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// An explore domain declares parameters and their values instead of single
// cases; the loader turns it into explore-tier cases with pairwise.Generate,
// so every pair of values of every two parameters is sent at least once, at
// a fraction of the calls of the full product (spec 4.5 rule 4: stacked
// parameters are combinations nobody verified):
//
//	explore:
//	  - id: explore-edit                 # cases explore-edit-01, -02, ...
//	    feature: images.edit.explore
//	    spec: 4.5/rule-4
//	    why: "..."
//	    key: image                       # key, models, method, path, model: or the file's defaults
//	    models: [gen-image-2.5-flare]
//	    request: {method: POST, path: /v1/images/edits, json: {...}}   # the base request
//	    parameters:                      # ordered; omit leaves the parameter out
//	      background: [transparent, opaque, auto]
//	      output_format: [png, jpeg, webp]
//	    constraints:                     # if every `if` holds, each `then` is one of its list
//	      - if: {background: opaque}
//	        then: {output_format: [jpeg]}
//
// The expectation of each row is derived from the request (deriveExpect), so
// a domain names no expect and no tier.

// Omit is the parameter value that leaves the parameter out of the request.
const Omit = "omit"

// Bounds of one domain: the generator's searches are exhaustive (bounded by
// the full product), and a domain is meant to be read by a person.
const (
	maxExploreParams      = 12
	maxExploreValues      = 32
	maxExploreConstraints = 64
	maxExploreRows        = 999 // ids take at most 3 digits
	// maxExploreProduct bounds the full product, and so each of the
	// generator's searches for a valid completion of a partial row.
	maxExploreProduct = 1_000_000
)

// exploreEntry is one domain as written. Parameters and Constraints are
// accepted here only as keys; they are read again from the AST, because
// their order and the position of every value matter.
type exploreEntry struct {
	ID          string   `yaml:"id"`
	Feature     string   `yaml:"feature"`
	Refs        SpecRefs `yaml:"spec"`
	Requirement string   `yaml:"requirement"`
	Why         string   `yaml:"why"`
	Key         KeyKind  `yaml:"key"`
	Models      []string `yaml:"models"`
	Requires    []string `yaml:"requires"`
	Request     Request  `yaml:"request"`
	Parameters  any      `yaml:"parameters"`
	Constraints any      `yaml:"constraints"`
}

// paramKind is how a parameter's values are sent in JSON.
type paramKind int

const (
	kindString paramKind = iota
	kindInt
	kindBool
)

// paramKinds types the image parameters of spec 4.4/4.5 that are not
// strings; every other parameter is sent as a string. Multipart sends all of
// them as text.
var paramKinds = map[string]paramKind{
	"n": kindInt, "partial_images": kindInt, "output_compression": kindInt,
	"stream": kindBool,
}

// exploreParam is one declared parameter with the position of each value.
type exploreParam struct {
	name   string
	kind   paramKind
	values []string
	at     Pos   // the parameter's key
	valAt  []Pos // each value
}

// condition is one `if` (value) or `then` (values) member of a constraint.
type condition struct {
	name   string
	values []string
}

// decodeExplore reads an explore list and returns the generated cases.
func (l *loader) decodeExplore(d *decoder, n ast.Node) []Case {
	var out []Case
	d.eachMapping(n, "explore", "a list of domains", "an explore domain", func(item ast.Node) {
		out = append(out, l.exploreDomain(d, item)...)
	})
	return out
}

// exploreDomain decodes one domain and generates its cases. Problems of the
// domain itself stop generation; the fields shared with cases are then still
// checked once, through a case built from the base request alone.
func (l *loader) exploreDomain(d *decoder, item ast.Node) []Case {
	var e exploreEntry
	at := nodePos(item)
	d.pos[""] = at
	d.decode(item, reflect.ValueOf(&e).Elem(), "")
	d.applyDefaults(&e.Key, &e.Models, &e.Request, nil)
	// validate reads these as if a case had written them.
	d.present["tier"], d.pos["tier"] = true, at
	d.present["expect"], d.pos["expect"] = true, at
	d.present["expect.status"], d.pos["expect.status"] = true, at

	ok := exploreIDOK(d, e.ID)
	params, pok := l.exploreParams(d, item, &e.Request)
	ok = ok && pok
	var cons []pairwise.Constraint
	if pok {
		var cok bool
		cons, cok = l.exploreConstraints(d, item, params)
		ok = ok && cok
	}
	protocol, rok := exploreRequest(d, &e.Request)
	ok = ok && rok

	pos := fmt.Sprintf("%s:%d:%d", d.file, at.Line, at.Col)
	base := Case{
		ID: e.ID, Feature: e.Feature, Tier: vocab.TierExplore, Refs: e.Refs, Spec: e.Refs.String(), Requirement: e.Requirement,
		Why: e.Why, Key: e.Key, Models: e.Models, Requires: e.Requires, Request: e.Request, Pos: pos,
	}
	var rows [][]string
	if ok {
		rows, ok = l.exploreRows(d, params, cons)
	}
	if !ok {
		// Check the shared fields once; the id was checked above.
		c := base
		if d.present["id"] {
			c.ID = ""
		}
		c.Expect = Expect{}
		l.validate(d, &c)
		return nil
	}
	return l.exploreCases(d, base, params, rows, protocol)
}

// exploreIDOK checks the id the domain's cases are numbered from; a
// missing one is validate's to report.
func exploreIDOK(d *decoder, id string) bool {
	switch {
	case !d.present["id"]:
		return false
	case id == "":
		d.errAt(d.at("id"), "id: empty")
		return false
	case !idPattern.MatchString(id):
		d.errAt(d.at("id"), "id %q must match %s", id, idPattern)
		return false
	}
	return true
}

// exploreCases makes a case of each row: the base with the row's
// parameters, numbered from the domain's id with as many digits as the
// last number needs (at least two), and its derived expectation.
func (l *loader) exploreCases(d *decoder, base Case, params []exploreParam, rows [][]string, protocol Protocol) []Case {
	width := max(2, len(strconv.Itoa(len(rows))))
	out := make([]Case, 0, len(rows))
	for i, row := range rows {
		c := base
		c.ID = fmt.Sprintf("%s-%0*d", base.ID, width, i+1)
		c.Params = map[string]string{}
		for j, p := range params {
			if row[j] != Omit {
				c.Params[p.name] = row[j]
			}
		}
		c.Request = withParams(base.Request, params, row)
		c.Expect = deriveExpect(protocol, &c.Request)
		l.validate(d, &c)
		out = append(out, c)
	}
	return out
}

// exploreParams reads the ordered parameters mapping.
func (l *loader) exploreParams(d *decoder, item ast.Node, base *Request) ([]exploreParam, bool) {
	pairs, ok := d.parameterPairs(item)
	if !ok {
		return nil, false
	}
	var params []exploreParam
	for _, pr := range pairs {
		path := "parameters." + pr.key
		if strings.TrimSpace(pr.key) == "" {
			d.errf(pr.keyNode, "parameters: empty parameter name")
			ok = false
			continue
		}
		if _, set := base.Param(pr.key); set {
			d.errf(pr.keyNode, "%s: already set in the base request; a parameter is added to the request, so leave it out of request", path)
			ok = false
		}
		seq := d.parameterList(pr, path)
		if seq == nil {
			ok = false
			continue
		}
		p, good := d.readParameter(pr, seq, path)
		ok = ok && good
		params = append(params, p)
	}
	return params, ok
}

// parameterPairs are the entries of the parameters mapping: at least one
// and at most maxExploreParams.
func (d *decoder) parameterPairs(item ast.Node) ([]pair, bool) {
	if !d.present["parameters"] {
		d.errAt(d.at(""), "missing field parameters (the parameter domain)")
		return nil, false
	}
	n := fieldNode(d, item, "parameters")
	m, ok := n.(*ast.MappingNode)
	if !ok {
		d.errf(n, "parameters: expected a mapping of parameter names to lists of values, got %s", kindOf(n))
		return nil, false
	}
	pairs := d.pairs(m)
	if len(pairs) == 0 {
		d.errf(n, "parameters: empty; declare at least one parameter")
		return nil, false
	}
	if len(pairs) > maxExploreParams {
		d.errf(n, "parameters: %d parameters; at most %d per domain", len(pairs), maxExploreParams)
		return nil, false
	}
	return pairs, true
}

// parameterList is the list of a parameter's values: at least one and at
// most maxExploreValues; nil after reporting why not.
func (d *decoder) parameterList(pr pair, path string) *ast.SequenceNode {
	vn := d.resolve(pr.value)
	seq, isSeq := vn.(*ast.SequenceNode)
	switch {
	case isNull(vn) || (isSeq && len(seq.Values) == 0):
		d.errf(pr.keyNode, "%s: no values; give a list of at least one value (omit leaves the parameter out)", path)
		return nil
	case !isSeq:
		d.errf(vn, "%s: expected a list of values, got %s", path, kindOf(vn))
		return nil
	case len(seq.Values) > maxExploreValues:
		d.errf(vn, "%s: %d values; at most %d per parameter", path, len(seq.Values), maxExploreValues)
		return nil
	}
	return seq
}

// readParameter reads a parameter's values, each with its position.
func (d *decoder) readParameter(pr pair, seq *ast.SequenceNode, path string) (exploreParam, bool) {
	p := exploreParam{name: pr.key, kind: paramKinds[pr.key], at: nodePos(pr.keyNode)}
	ok := true
	for i, n := range seq.Values {
		n = d.resolve(n)
		if n == nil {
			ok = false
			continue
		}
		s, good := d.parameterValue(&p, n, fmt.Sprintf("%s[%d]", path, i))
		if !good {
			ok = false
			continue
		}
		p.values = append(p.values, s)
		p.valAt = append(p.valAt, nodePos(n))
	}
	return p, ok
}

// parameterValue is one value of p as text: a scalar, new to p, of p's
// type, and a valid template if p is sent as a string; false after
// reporting why not.
func (d *decoder) parameterValue(p *exploreParam, n ast.Node, path string) (string, bool) {
	s, isScalar := scalarText(n)
	var msg string
	switch {
	case !isScalar:
		msg = fmt.Sprintf("expected a value, got %s", kindOf(n))
	case slices.Contains(p.values, s):
		msg = fmt.Sprintf("value %q listed twice", s)
	default:
		msg = badValue(*p, s)
	}
	if msg != "" {
		d.errf(n, "%s: %s", path, msg)
		return "", false
	}
	if p.kind == kindString && s != Omit {
		d.checkTemplate(n, s)
	}
	return s, true
}

// badValue checks a value against its parameter's type.
func badValue(p exploreParam, s string) string {
	if s == Omit {
		return ""
	}
	switch p.kind {
	case kindInt:
		if _, err := strconv.ParseInt(s, 10, 64); err != nil {
			return fmt.Sprintf("%s takes integers (or omit), got %q", p.name, s)
		}
	case kindBool:
		if s != "true" && s != "false" {
			return fmt.Sprintf("%s takes true or false (or omit), got %q", p.name, s)
		}
	}
	if strings.TrimSpace(s) == "" {
		return "empty value (use omit to leave the parameter out)"
	}
	return ""
}

// constraintFields are the keys of one constraint, for "unknown field".
var constraintFields = []fieldInfo{{name: "if"}, {name: "then"}}

// exploreConstraints reads the constraints and returns them as pairwise
// constraints over the declared parameters.
func (l *loader) exploreConstraints(d *decoder, item ast.Node, params []exploreParam) ([]pairwise.Constraint, bool) {
	if !d.present["constraints"] {
		return nil, true
	}
	n := fieldNode(d, item, "constraints")
	seq, ok := n.(*ast.SequenceNode)
	if !ok {
		d.errf(n, "constraints: expected a list, got %s", kindOf(n))
		return nil, false
	}
	if len(seq.Values) > maxExploreConstraints {
		d.errf(n, "constraints: %d constraints; at most %d per domain", len(seq.Values), maxExploreConstraints)
		return nil, false
	}
	var out []pairwise.Constraint
	for i, cn := range seq.Values {
		c, good := exploreConstraint(d, cn, fmt.Sprintf("constraints[%d]", i), params)
		if !good {
			ok = false
			continue
		}
		out = append(out, c)
	}
	return out, ok
}

// exploreConstraint reads one constraint: a mapping of if and then.
func exploreConstraint(d *decoder, n ast.Node, path string, params []exploreParam) (pairwise.Constraint, bool) {
	n = d.resolve(n)
	m, isMap := n.(*ast.MappingNode)
	if !isMap {
		if n != nil {
			d.errf(n, "%s: expected a mapping with if and then, got %s", path, kindOf(n))
		}
		return nil, false
	}
	var ifs, thens []condition
	hasIf, hasThen, ok := false, false, true
	for _, pr := range d.pairs(m) {
		good := false
		switch pr.key {
		case "if":
			hasIf = true
			ifs, good = readConditions(d, pr, path+".if", params, false)
		case "then":
			hasThen = true
			thens, good = readConditions(d, pr, path+".then", params, true)
		default:
			d.errf(pr.keyNode, "unknown field %q in constraint%s", pr.key, suggest(pr.key, constraintFields))
		}
		ok = ok && good
	}
	if !hasIf {
		d.errf(n, "%s: missing field if (the parameter values the constraint applies to)", path)
		ok = false
	}
	if !hasThen {
		d.errf(n, "%s: missing field then (the values the other parameters may take)", path)
		ok = false
	}
	return implies(ifs, thens), ok
}

// readConditions reads `if` (one value each) or `then` (a list each).
func readConditions(d *decoder, pr pair, path string, params []exploreParam, lists bool) ([]condition, bool) {
	n := d.resolve(pr.value)
	m, ok := n.(*ast.MappingNode)
	if !ok {
		at := n
		if at == nil {
			at = pr.keyNode
		}
		d.errf(at, "%s: expected a mapping of parameter names to %s, got %s", path, map[bool]string{false: "values", true: "lists of values"}[lists], kindOf(n))
		return nil, false
	}
	pairs := d.pairs(m)
	if len(pairs) == 0 {
		d.errf(n, "%s: empty; name at least one parameter", path)
		return nil, false
	}
	names := make([]string, len(params))
	for i, p := range params {
		names[i] = p.name
	}
	var out []condition
	for _, c := range pairs {
		i := slices.IndexFunc(params, func(p exploreParam) bool { return p.name == c.key })
		if i < 0 {
			d.errf(c.keyNode, "%s: unknown parameter %q%s", path, c.key, Closest(c.key, names))
			ok = false
			continue
		}
		cond, good := readCondition(d, c, path+"."+c.key, params[i], lists)
		ok = ok && good
		out = append(out, cond)
	}
	return out, ok
}

// readCondition reads the value (if) or the values (then) of one parameter
// in a constraint; each must be one the parameter declares.
func readCondition(d *decoder, c pair, path string, p exploreParam, lists bool) (condition, bool) {
	vals, ok := conditionValues(d, c, path, p, lists)
	cond := condition{name: p.name}
	for _, v := range vals {
		v = d.resolve(v)
		s, isScalar := scalarText(v)
		if v == nil || !isScalar {
			at := v
			if at == nil {
				at = c.keyNode
			}
			d.errf(at, "%s: expected a value, got %s", path, kindOf(v))
			ok = false
			continue
		}
		if !slices.Contains(p.values, s) {
			d.errf(v, "%s: %q is not a value of parameter %s (%s)", path, s, p.name, strings.Join(p.values, ", "))
			ok = false
			continue
		}
		cond.values = append(cond.values, s)
	}
	return cond, ok
}

// conditionValues are the value nodes of one parameter in a constraint: one
// value, or (in then, lists) a list of at least one.
func conditionValues(d *decoder, c pair, path string, p exploreParam, lists bool) ([]ast.Node, bool) {
	vn := d.resolve(c.value)
	seq, isSeq := vn.(*ast.SequenceNode)
	switch {
	case !isSeq:
		return []ast.Node{vn}, true
	case !lists:
		d.errf(vn, "%s: expected one value, got a list (a list belongs in then)", path)
		return nil, false
	case len(seq.Values) == 0:
		d.errf(vn, "%s: empty list; give the values %s may take", path, p.name)
		return nil, false
	}
	return seq.Values, true
}

// implies is the constraint "when every if holds, each then parameter is one
// of its values". It allows what it cannot decide yet (a parameter absent
// from a partial row), as pairwise requires.
func implies(ifs, thens []condition) pairwise.Constraint {
	return func(a map[string]string) bool {
		for _, c := range ifs {
			v, set := a[c.name]
			if !set || v != c.values[0] {
				return true
			}
		}
		for _, c := range thens {
			if v, set := a[c.name]; set && !slices.Contains(c.values, v) {
				return false
			}
		}
		return true
	}
}

// exploreRows runs the generator and checks that every declared value can
// be sent: a value no valid row holds is a constraint mistake.
func (l *loader) exploreRows(d *decoder, params []exploreParam, cons []pairwise.Constraint) ([][]string, bool) {
	pp := make([]pairwise.Parameter, len(params))
	for i, p := range params {
		pp[i] = pairwise.Parameter{Name: p.name, Values: p.values}
	}
	if n := pairwise.Cartesian(pp); n > maxExploreProduct {
		d.errAt(d.keyAt("parameters"), "parameters: the full product has %d rows; at most %d per domain", n, maxExploreProduct)
		return nil, false
	}
	rows, err := pairwise.Generate(pp, cons...)
	switch {
	case errors.Is(err, pairwise.ErrNoValidRow):
		d.errAt(d.keyAt("constraints"), "constraints: no row satisfies every constraint (they contradict each other)")
		return nil, false
	case err != nil:
		d.errAt(d.keyAt("parameters"), "parameters: %v", err)
		return nil, false
	case len(rows) > maxExploreRows:
		d.errAt(d.keyAt("parameters"), "parameters: the domain gives %d rows; at most %d", len(rows), maxExploreRows)
		return nil, false
	}
	ok := true
	for j, p := range params {
		for k, v := range p.values {
			if !slices.ContainsFunc(rows, func(r []string) bool { return r[j] == v }) {
				d.errAt(p.valAt[k], "parameters.%s[%d]: value %q is in no row the constraints allow", p.name, k, v)
				ok = false
			}
		}
	}
	return rows, ok
}

// exploreRequest checks that the base request can take parameters and that
// an expectation can be derived for its path; it returns the SSE protocol of
// the path.
func exploreRequest(d *decoder, r *Request) (Protocol, bool) {
	if !d.present["request"] {
		return "", false // validate reports it
	}
	ok := explorePost(d, r)
	var protocol Protocol
	for p, info := range protocols {
		if info.path == r.Path && info.image {
			protocol = p
		}
	}
	if protocol == "" && d.present["request.path"] && r.Path != "" {
		d.errAt(d.at("request.path"), "request.path: expectations are derived for %s and %s only, not %q",
			protocols[ProtocolImageEdit].path, protocols[ProtocolImageGeneration].path, r.Path)
		ok = false
	}
	return protocol, ok && protocol != ""
}

// explorePost: the base request is a POST with a body the parameters can be
// added to, a json mapping or a form.
func explorePost(d *decoder, r *Request) bool {
	ok := true
	if r.Method != "" && r.Method != "POST" {
		d.errAt(d.at("request.method"), "request.method: an explore domain sends POST requests, not %s", r.Method)
		ok = false
	}
	switch {
	case d.present["request.raw"]:
		d.errAt(d.keyAt("request.raw"), "request: an explore domain adds parameters to a json or multipart body, not raw")
		ok = false
	case d.present["request.json"]:
		if _, isMap := r.JSON.(map[string]any); !isMap {
			d.errAt(d.at("request.json"), "request.json: expected a mapping (parameters are added at its top level)")
			ok = false
		}
	case !d.present["request.multipart"]:
		ok = false // validate reports the missing body
	}
	return ok
}

// withParams returns the base request with the row's parameters added:
// typed members at the top level of json, or text fields after the written
// multipart fields. Omitted parameters are left out.
func withParams(base Request, params []exploreParam, row []string) Request {
	r := base
	if m, ok := base.JSON.(map[string]any); ok {
		out := make(map[string]any, len(m)+len(params))
		for k, v := range m {
			out[k] = v
		}
		for j, p := range params {
			if row[j] != Omit {
				out[p.name] = typed(p.kind, row[j])
			}
		}
		r.JSON = out
		return r
	}
	r.Multipart = slices.Clone(base.Multipart)
	for j, p := range params {
		if row[j] != Omit {
			r.Multipart = append(r.Multipart, FormField{Name: p.name, Value: row[j]})
		}
	}
	return r
}

// typed converts a value to its JSON type; integers as the YAML loader
// gives them (uint64, or int64 when negative).
func typed(k paramKind, s string) any {
	switch k {
	case kindInt:
		i, _ := strconv.ParseInt(s, 10, 64) // checked by badValue
		if i >= 0 {
			return uint64(i)
		}
		return i
	case kindBool:
		return s == "true"
	}
	return s
}

// deriveExpect is what a row's answer must show: 200, and an image result
// (or image stream) holding the requested images. It reads the request
// itself, so a parameter fixed in the base request counts like one of the
// domain:
//   - streaming: sse of the path's protocol, at most partial_images previews
//     (0 when omitted), completed images of output_format (png when
//     omitted), size and n;
//   - otherwise: schema image_result and images of output_format, size, n,
//     with real alpha when background is transparent and none for jpeg.
//
// size is checked unless auto (the spec shows no size for it); omitted it is
// 1254x1254 (spec 4.4, 4.5).
func deriveExpect(protocol Protocol, r *Request) Expect {
	im := derivedImages(r)
	if s, _ := scalarParam(r, "stream"); s == "true" {
		previews := derivedPreviews(r)
		return Expect{Status: 200, SSE: &SSEExpect{Protocol: protocol, MaxPreviews: &previews, Images: im}}
	}
	if b, _ := scalarParam(r, "background"); b == "transparent" {
		im.Transparent = &DefaultTransparency
	} else if im.Format == "jpeg" {
		im.Alpha = new(false)
	}
	return Expect{Status: 200, Schema: "image_result", Images: im}
}

// derivedImages is what every image of the answer must be: of
// output_format, size and n as requested, or their defaults when omitted; a
// value that is not one of those checks nothing.
func derivedImages(r *Request) *ImageExpect {
	im := &ImageExpect{Format: "png", Size: "1254x1254", Count: 1}
	if f, ok := scalarParam(r, "output_format"); ok {
		im.Format = ""
		if slices.Contains(ImageFormats, f) {
			im.Format = f
		}
	}
	if s, ok := scalarParam(r, "size"); ok {
		im.Size = ""
		if sizePattern.MatchString(s) {
			im.Size = s
		}
	}
	if s, ok := scalarParam(r, "n"); ok {
		im.Count = 0 // not an integer of at least 1: nothing to count against
		if n, err := strconv.Atoi(s); err == nil && n >= 1 {
			im.Count = n
		}
	}
	return im
}

// derivedPreviews is partial_images, the most previews a stream may show
// (0 when omitted or not a positive integer).
func derivedPreviews(r *Request) int {
	if s, ok := scalarParam(r, "partial_images"); ok {
		if p, err := strconv.Atoi(s); err == nil && p > 0 {
			return p
		}
	}
	return 0
}

// scalarParam is a request parameter as text; false when absent, null, or
// a list or mapping.
func scalarParam(r *Request, name string) (string, bool) {
	v, ok := r.Param(name)
	if !ok || v == nil {
		return "", false
	}
	switch v.(type) {
	case map[string]any, []any:
		return "", false
	}
	return fmt.Sprint(v), true
}
