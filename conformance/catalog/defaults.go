package catalog

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/goccy/go-yaml/ast"
)

// A case file may give, beside its cases, the values most of them repeat:
//
//	defaults:
//	  key: image
//	  models: [gen-image-2.5-flare, gen-image-2.5-sunburst]
//	  request:
//	    method: POST
//	    path: /v1/images/edits
//	    model: "{{ .Model }}"    # the body's model member
//
// A case (or explore domain) of the file that does not give key, models,
// request.method or request.path takes the default; a case's own value
// wins. request.model is the member `model` of the request body: it is
// added to a json body (a mapping) and to each variant's json that have no
// `model` of their own, and sent as the first multipart field of a form
// that has none. A case whose body must go without it (a missing-model
// refusal, a request served by the default model) says so with
// `request.omit: [model]`. Defaults are resolved while loading: a Case holds
// the values it is sent with, wherever they were written.

// fileDefaults is a file's defaults: block as written.
type fileDefaults struct {
	Key     KeyKind         `yaml:"key"`
	Models  []string        `yaml:"models"`
	Request requestDefaults `yaml:"request"`
}

// requestDefaults is defaults.request.
type requestDefaults struct {
	Method string `yaml:"method"`
	Path   string `yaml:"path"`
	// Model is the body member model, a template ("{{ .Model }}").
	Model string `yaml:"model"`
}

// Omittable are the body members request.omit may name: those a file's
// defaults can add.
var Omittable = []string{"model"}

// defaults is a decoded defaults: block with where each value was written
// (under the same field paths as a case's: "key", "request.method"), so a
// problem of a value a case took is reported at the default.
type defaults struct {
	fileDefaults
	pos, keyPos     map[string]Pos
	present, failed map[string]bool
	usesPublicURL   bool
	publicURLPos    Pos
}

// decodeDefaults reads a defaults: block and checks its values as a case's
// own would be checked (with the same messages, so a default a case takes
// is reported once, at the default).
func (d *decoder) decodeDefaults(n ast.Node) *defaults {
	d.resetCase()
	defer d.resetCase()
	r := d.resolve(n)
	if r == nil && !isNull(n) {
		return nil // an alias that resolves to nothing, reported
	}
	if _, ok := r.(*ast.MappingNode); !ok && !isNull(r) {
		d.errf(r, "defaults: expected a mapping of key, models and request, got %s", kindOf(r))
		return nil
	}
	df := &defaults{}
	d.decode(r, reflect.ValueOf(&df.fileDefaults).Elem(), "defaults")
	d.moveDefaultsState(df)

	// Check with the positions of the defaults, under a case's paths.
	maps.Copy(d.pos, df.pos)
	maps.Copy(d.keyPos, df.keyPos)
	d.checkDefaults(n, df)
	return df
}

// moveDefaultsState moves what decoding recorded of the defaults into df,
// under the field paths of a case ("defaults.key" becomes "key"), where
// positions are looked up, and clears it from the decoder.
func (d *decoder) moveDefaultsState(df *defaults) {
	df.pos, df.keyPos, df.present, df.failed = map[string]Pos{}, map[string]Pos{}, map[string]bool{}, map[string]bool{}
	for k, p := range d.pos {
		if s, ok := strings.CutPrefix(k, "defaults."); ok {
			df.pos[s], df.keyPos[s] = p, d.keyPos[k]
			df.present[s], df.failed[s] = d.present[k], d.failed[k]
		}
	}
	df.usesPublicURL, df.publicURLPos = d.usesPublicURL, d.publicURLPos
	d.resetCase()
}

// checkDefaults checks each value the defaults give as a case's own.
func (d *decoder) checkDefaults(n ast.Node, df *defaults) {
	if !slices.ContainsFunc([]string{"key", "models", "request.method", "request.path", "request.model"}, func(f string) bool { return df.present[f] }) {
		d.errAt(nodePos(n), "defaults: empty; give key, models or request (method, path, model), or leave defaults out")
	}
	if df.present["key"] {
		checkKey(d, df.Key)
	}
	if df.present["models"] && !df.failed["models"] {
		checkModels(d, df.Models)
	}
	if df.present["request.method"] {
		checkMethod(d, df.Request.Method)
	}
	if df.present["request.path"] {
		checkPath(d, df.Request.Path)
	}
	if df.present["request.model"] && !df.failed["request.model"] {
		checkDefaultModel(d, df.Request.Model)
	}
}

// checkDefaultModel: the body member model the defaults add is a value
// that can be sent as a json member and as a form field.
func checkDefaultModel(d *decoder, m string) {
	switch {
	case strings.TrimSpace(m) == "":
		d.errAt(d.at("request.model"), "defaults.request.model: empty; give the model member, e.g. \"{{ .Model }}\"")
	case strings.HasPrefix(m, "@"):
		d.errAt(d.at("request.model"), "defaults.request.model: %q would be a file part in a multipart body; a model id does not start with @", m)
	}
}

// applyDefaults gives a case (or explore domain) just decoded the file's
// defaults where it has no value of its own, with the default's position,
// and applies request.omit.
func (d *decoder) applyDefaults(key *KeyKind, models *[]string, r *Request, variants []Variant) {
	df := d.defaults
	if df != nil {
		take := func(field string) bool {
			if d.present[field] || !df.present[field] {
				return false
			}
			d.present[field], d.pos[field], d.keyPos[field] = true, df.pos[field], df.keyPos[field]
			d.failed[field] = df.failed[field]
			return true
		}
		if take("key") {
			*key = df.Key
		}
		if take("models") {
			*models = slices.Clone(df.Models)
		}
		if !d.present["request"] && (df.present["request.method"] || df.present["request.path"]) {
			// The request is the defaults' alone; what it lacks is the case's.
			d.present["request"], d.pos["request"], d.keyPos["request"] = true, d.pos[""], d.pos[""]
		}
		if d.present["request"] {
			if take("request.method") {
				r.Method = df.Request.Method
			}
			if take("request.path") {
				r.Path = df.Request.Path
			}
		}
	}
	d.applyModel(r, variants)
}

// applyModel adds the defaults' body member model to every body that has
// none, unless request.omit leaves it out, and checks request.omit.
func (d *decoder) applyModel(r *Request, variants []Variant) {
	var model string
	if df := d.defaults; df != nil && df.present["request.model"] {
		model = df.Request.Model
	}
	omitted := d.checkOmit(r, variants, model)
	if model == "" || omitted["model"] {
		return
	}
	// A body that takes the defaults' model takes their use of
	// publicImageURL with it.
	if addModel(r, variants, model) && d.defaults.usesPublicURL && !d.usesPublicURL {
		d.usesPublicURL, d.publicURLPos = true, d.defaults.publicURLPos
	}
}

// checkOmit checks each member request.omit names against what the
// defaults add (model, "" for nothing) and the body, and returns the names.
func (d *decoder) checkOmit(r *Request, variants []Variant, model string) map[string]bool {
	omitted := map[string]bool{}
	for i, name := range d.omit {
		at := d.omitAt[i]
		switch {
		case omitted[name]:
			d.errAt(at, "request.omit: %s listed twice", name)
		case !slices.Contains(Omittable, name):
			d.errAt(at, "request.omit: %q is no member the file's defaults add (%s)%s", name, strings.Join(Omittable, ", "), Closest(name, Omittable))
		case model == "":
			d.errAt(at, "request.omit: the file's defaults (defaults.request.model) add no %s to leave out", name)
		case r.JSON == nil && r.Multipart == nil && len(variants) == 0:
			d.errAt(at, "request.omit leaves %s out of a json, multipart or variants body; this request has none", name)
		case bodyHas(r, variants, name):
			d.errAt(at, "request.omit leaves %s out, yet the body gives it", name)
		}
		omitted[name] = true
	}
	return omitted
}

// addModel gives the member model to the json body, the form and each
// variant's json that have none (first in a form); false when none lacked
// it.
func addModel(r *Request, variants []Variant, model string) bool {
	added := addJSONModel(r.JSON, model)
	if r.Multipart != nil && !slices.ContainsFunc(r.Multipart, func(f FormField) bool { return f.Name == "model" }) {
		r.Multipart = slices.Insert(r.Multipart, 0, FormField{Name: "model", Value: model})
		added = true
	}
	for _, v := range variants {
		if addJSONModel(v.JSON, model) {
			added = true
		}
	}
	return added
}

// addJSONModel sets the member model of a json body (a mapping) without one.
func addJSONModel(body any, model string) bool {
	m, ok := body.(map[string]any)
	if !ok {
		return false
	}
	if _, has := m["model"]; has {
		return false
	}
	m["model"] = model
	return true
}

// bodyHas reports whether a json, multipart or variant body gives member name.
func bodyHas(r *Request, variants []Variant, name string) bool {
	if m, ok := r.JSON.(map[string]any); ok {
		if _, has := m[name]; has {
			return true
		}
	}
	if slices.ContainsFunc(r.Multipart, func(f FormField) bool { return f.Name == name }) {
		return true
	}
	return slices.ContainsFunc(variants, func(v Variant) bool {
		m, ok := v.JSON.(map[string]any)
		_, has := m[name]
		return ok && has
	})
}

// decodeOmit reads request.omit: a list of body member names.
func (d *decoder) decodeOmit(n ast.Node, path string) {
	n = d.resolve(n)
	if isNull(n) {
		return
	}
	seq, ok := n.(*ast.SequenceNode)
	if !ok {
		d.mismatch(n, path, "expected a list of body members, e.g. [model], got %s", kindOf(n))
		return
	}
	if len(seq.Values) == 0 {
		d.errf(seq, "%s: empty list; leave omit out instead", path)
	}
	for _, e := range seq.Values {
		e = d.resolve(e)
		if e == nil {
			continue
		}
		s, ok := scalarText(e)
		if !ok {
			d.mismatch(e, path, "expected a body member name, got %s", kindOf(e))
			continue
		}
		d.omit = append(d.omit, s)
		d.omitAt = append(d.omitAt, nodePos(e))
	}
}

// checkKey, checkModels, checkMethod and checkPath check a value of a case
// or of the defaults, at the position of its field path.
func checkKey(d *decoder, k KeyKind) {
	if k != "" && !slices.Contains(KeyKinds, k) {
		d.errAt(d.at("key"), "key %q is not one of text, messages, image, alt", k)
	}
}

func checkModels(d *decoder, models []string) {
	if len(models) == 0 {
		d.errAt(d.at("models"), "models: at least one model is needed")
	}
	for i, m := range models {
		p := fmt.Sprintf("models[%d]", i)
		if strings.TrimSpace(m) == "" {
			d.errAt(d.at(p), "%s: empty model id", p)
		} else if slices.Index(models, m) < i {
			d.errAt(d.at(p), "%s: model %q listed twice", p, m)
		}
	}
}

func checkMethod(d *decoder, m string) {
	switch m {
	case "", "GET", "POST":
	default:
		d.errAt(d.at("request.method"), "request.method %q is not GET or POST", m)
	}
}

func checkPath(d *decoder, p string) {
	if p != "" && !strings.HasPrefix(p, "/v1/") {
		d.errAt(d.at("request.path"), "request.path %q must start with /v1/", p)
	}
}
